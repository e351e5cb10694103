package dev.lockstep.aop;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;

/**
 * The one advisor shape of Lockstep's annotations: it applies its interceptor to the methods its
 * {@link AnnotatedMethods} resolves, and lets their attributes read the application's
 * placeholders. Register a subclass as an infrastructure bean; any auto-proxy creator (Spring Boot
 * always has one) picks it up.
 */
public abstract class AnnotatedMethodAdvisor extends AbstractPointcutAdvisor implements BeanFactoryAware {

	private final AnnotatedMethods<?> methods;

	private final MethodInterceptor interceptor;

	private final Pointcut pointcut = new StaticMethodMatcherPointcut() {
		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return AnnotatedMethodAdvisor.this.methods.find(method, targetClass) != null;
		}
	};

	protected AnnotatedMethodAdvisor(AnnotatedMethods<?> methods, MethodInterceptor interceptor) {
		this.methods = methods;
		this.interceptor = interceptor;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.methods.setBeanFactory(configurable);
		}
	}

	@Override
	public final Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public final Advice getAdvice() {
		return this.interceptor;
	}

}
