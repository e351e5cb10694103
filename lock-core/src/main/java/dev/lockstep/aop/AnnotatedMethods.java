package dev.lockstep.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.util.ClassUtils;

import dev.lockstep.internal.MethodAttributes;

/**
 * The methods one kind of annotation applies to, each resolved once: the first time a proxy asks
 * about a method of a class, the resolver reads the annotation on the most specific method and
 * turns it into what the interceptor needs (or null: not annotated), checking it on the way, so
 * that a bad annotation fails startup, when the proxy is created, naming the method. Later calls
 * find the result in the cache.
 * @param <T> what a method resolves to
 */
public final class AnnotatedMethods<T> {

	private final Map<MethodClassKey, Optional<T>> cache = new ConcurrentHashMap<>();

	private final MethodAttributes attributes = new MethodAttributes();

	private final Resolver<T> resolver;

	public AnnotatedMethods(Resolver<T> resolver) {
		this.resolver = resolver;
	}

	/** Lets {@code ${...}} placeholders in annotation attributes resolve against the application's environment. */
	public void setBeanFactory(ConfigurableBeanFactory beanFactory) {
		this.attributes.setBeanFactory(beanFactory);
	}

	/** What {@code method}, called on an instance of {@code targetClass}, resolves to; null if not annotated. */
	public @Nullable T find(Method method, @Nullable Class<?> targetClass) {
		return this.cache.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			Class<?> userClass = ClassUtils.getUserClass((targetClass != null) ? targetClass : method.getDeclaringClass());
			return Optional.ofNullable(this.resolver.resolve(specific, userClass, this.attributes));
		}).orElse(null);
	}

	/** Reads one kind of annotation on a method. */
	@FunctionalInterface
	public interface Resolver<T> {

		/**
		 * @param method the most specific method (the one the target class declares or inherits)
		 * @param userClass the class of the bean, not of its proxy
		 * @param attributes resolves placeholders and durations in annotation attributes
		 * @return what the method resolves to, or null if the annotation is not on it
		 * @throws IllegalStateException if the annotation is there but cannot apply, naming the method
		 */
		@Nullable T resolve(Method method, Class<?> userClass, MethodAttributes attributes);

	}

}
