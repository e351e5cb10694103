package dev.lockstep.annotation;

import java.lang.reflect.Method;
import java.time.Duration;

import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.Ordered;

import dev.lockstep.LockService;

/**
 * Applies {@link DistributedLock} and {@link SerialGroup} to the methods of Spring beans. Register
 * it as an infrastructure bean; any auto-proxy creator (Spring Boot always has one) picks it up.
 * The lock service is looked up on first use, so the advisor can be created early.
 */
public final class LockAnnotationAdvisor extends AbstractPointcutAdvisor implements BeanFactoryAware {

	/** Default order: just outside the transaction advisor, so a transaction commits before its lock is released. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final LockedMethods methods;

	private final LockInterceptor interceptor;

	private final Pointcut pointcut = new StaticMethodMatcherPointcut() {
		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return LockAnnotationAdvisor.this.methods.find(method, targetClass) != null;
		}
	};

	/**
	 * @param lockService the lock service, resolved on first call
	 * @param lockWaitTime the wait of {@code @DistributedLock} methods that set none
	 * @param groupWaitTime the wait of {@code @SerialGroup} methods that set none
	 */
	public LockAnnotationAdvisor(ObjectProvider<LockService> lockService, Duration lockWaitTime, Duration groupWaitTime) {
		this.methods = new LockedMethods(lockWaitTime, groupWaitTime);
		this.interceptor = new LockInterceptor(this.methods, lockService);
		setOrder(DEFAULT_ORDER);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.methods.setBeanFactory(configurable);
		}
		this.interceptor.setObservations(beanFactory.getBeanProvider(ObservationRegistry.class));
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
