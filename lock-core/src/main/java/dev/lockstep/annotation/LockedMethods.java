package dev.lockstep.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

import dev.lockstep.SerialGroups;
import dev.lockstep.spel.KeyExpression;

/**
 * Finds {@link DistributedLock} and {@link SerialGroup} on methods and resolves them once: names,
 * {@code ${...}} placeholders, durations and key expressions. Anything wrong fails at startup,
 * when the proxy is created, with a message naming the method and the attribute.
 */
final class LockedMethods {

	private final Map<MethodClassKey, Optional<LockedMethod>> cache = new ConcurrentHashMap<>();

	private final Duration lockWaitTime;

	private final Duration groupWaitTime;

	private final MethodAttributes attributes = new MethodAttributes();

	LockedMethods(Duration lockWaitTime, Duration groupWaitTime) {
		this.lockWaitTime = lockWaitTime;
		this.groupWaitTime = groupWaitTime;
	}

	void setBeanFactory(ConfigurableBeanFactory beanFactory) {
		this.attributes.setBeanFactory(beanFactory);
	}

	@Nullable LockedMethod find(Method method, @Nullable Class<?> targetClass) {
		return this.cache.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> Optional.ofNullable(resolve(method, targetClass)))
			.orElse(null);
	}

	private @Nullable LockedMethod resolve(Method method, @Nullable Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		SerialGroup group = AnnotatedElementUtils.findMergedAnnotation(specific, SerialGroup.class);
		if (lock == null && group == null) {
			return null;
		}
		String source = "@" + ((lock != null) ? "DistributedLock" : "SerialGroup") + " on "
				+ MethodAttributes.describe(specific);
		if (lock != null && group != null) {
			throw new IllegalStateException(source + " also has @SerialGroup; a method takes one of the two");
		}
		MethodAttributes.requireInterceptable(specific, source);
		Class<?> userClass = ClassUtils.getUserClass((targetClass != null) ? targetClass : method.getDeclaringClass());
		String name = (lock != null) ? lock.name() : group.name();
		name = StringUtils.hasText(name) ? this.attributes.resolve(name) : userClass.getSimpleName() + "." + method.getName();
		String keyText = (lock != null) ? lock.key() : group.key();
		String waitText = (lock != null) ? lock.waitTime() : group.waitTime();
		String leaseText = (lock != null) ? lock.leaseTime() : group.leaseTime();
		Duration wait = StringUtils.hasText(waitText) ? this.attributes.duration(source, "waitTime", waitText, true)
				: ((lock != null) ? this.lockWaitTime : this.groupWaitTime);
		Duration lease = StringUtils.hasText(leaseText) ? this.attributes.duration(source, "leaseTime", leaseText, false) : null;
		return new LockedMethod(source, name, KeyExpression.parse(keyText, specific, source), wait, lease,
				group != null, specific.getReturnType());
	}

}
