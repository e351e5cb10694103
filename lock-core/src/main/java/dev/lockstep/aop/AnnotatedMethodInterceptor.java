package dev.lockstep.aop;

import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;

/**
 * The one interceptor shape beside {@link AnnotatedMethodAdvisor}: finds the resolved annotated
 * method of each call (through the bean's target class, so that an annotation on the
 * implementation counts) and lets a call of any other method through as it is. The service that
 * applies the annotation is looked up at each call, so that the interceptor can be made before it.
 * @param <T> what the annotation of a method resolves to
 * @param <S> the service that applies the annotation
 */
public abstract class AnnotatedMethodInterceptor<T, S> implements MethodInterceptor {

	private final AnnotatedMethods<T> methods;

	private final Supplier<S> service;

	protected AnnotatedMethodInterceptor(AnnotatedMethods<T> methods, Supplier<S> service) {
		this.methods = methods;
		this.service = service;
	}

	/** The service that applies the annotation, as the application has it now. */
	protected final S service() {
		return this.service.get();
	}

	@Override
	public final @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object bean = invocation.getThis();
		T method = this.methods.find(invocation.getMethod(), (bean != null) ? AopUtils.getTargetClass(bean) : null);
		return (method != null) ? invoke(invocation, method) : invocation.proceed();
	}

	/** A call of an annotated method, with what its annotation resolved to. */
	protected abstract @Nullable Object invoke(MethodInvocation invocation, T method) throws Throwable;

}
