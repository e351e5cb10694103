package dev.lockstep.aop;

import java.time.Duration;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

import dev.lockstep.LockService;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.SerialGroup;

/**
 * Applies {@link DistributedLock} and {@link SerialGroup} to the methods of Spring beans. Register
 * it as an infrastructure bean; any auto-proxy creator (Spring Boot always has one) picks it up.
 * The lock service is looked up on first use, so the advisor can be created early.
 */
public final class LockAnnotationAdvisor extends AnnotatedMethodAdvisor {

	/** Default order: just outside the transaction advisor, so a transaction commits before its lock is released. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final LockInterceptor interceptor;

	/**
	 * @param lockService the lock service, resolved on first call
	 * @param lockWaitTime the wait of {@code @DistributedLock} methods that set none
	 * @param groupWaitTime the wait of {@code @SerialGroup} methods that set none
	 */
	public LockAnnotationAdvisor(ObjectProvider<LockService> lockService, Duration lockWaitTime, Duration groupWaitTime) {
		this(new AnnotatedMethods<>(new LockedMethods(lockWaitTime, groupWaitTime)), lockService);
	}

	private LockAnnotationAdvisor(AnnotatedMethods<LockedMethod> methods, ObjectProvider<LockService> lockService) {
		this(methods, new LockInterceptor(methods, lockService));
	}

	private LockAnnotationAdvisor(AnnotatedMethods<LockedMethod> methods, LockInterceptor interceptor) {
		super(methods, interceptor);
		this.interceptor = interceptor;
		setOrder(DEFAULT_ORDER);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		super.setBeanFactory(beanFactory);
		this.interceptor.setObservations(beanFactory.getBeanProvider(ObservationRegistry.class));
	}

}
