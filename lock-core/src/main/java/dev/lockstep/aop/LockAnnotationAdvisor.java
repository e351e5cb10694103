package dev.lockstep.aop;

import java.time.Duration;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.util.function.SingletonSupplier;

import dev.lockstep.LockService;
import dev.lockstep.SerialGroups;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.SerialGroup;
import dev.lockstep.group.LockServiceSerialGroups;

/**
 * Applies {@link DistributedLock} (through the {@link LockService}) and {@link SerialGroup}
 * (through the {@link SerialGroups}) to the methods of Spring beans. Register it as an
 * infrastructure bean; any auto-proxy creator (Spring Boot always has one) picks it up. Both
 * services are looked up on first use, so the advisor can be created early.
 */
public final class LockAnnotationAdvisor extends AnnotatedMethodAdvisor {

	/** Default order: just outside the transaction advisor, so a transaction commits before its lock is released. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final LockInterceptor interceptor;

	/**
	 * Groups are taken on {@code lockService} too, through a {@link LockServiceSerialGroups}.
	 * @param lockService the lock service, resolved on first call
	 * @param lockWaitTime the wait of {@code @DistributedLock} methods that set none
	 * @param groupWaitTime the wait of {@code @SerialGroup} methods that set none
	 */
	public LockAnnotationAdvisor(ObjectProvider<LockService> lockService, Duration lockWaitTime, Duration groupWaitTime) {
		this(lockService::getObject, SingletonSupplier.of(() -> new LockServiceSerialGroups(lockService.getObject())),
				lockWaitTime, groupWaitTime);
	}

	/**
	 * @param lockService the lock service of {@code @DistributedLock}, resolved on first call
	 * @param serialGroups the serial groups of {@code @SerialGroup}, resolved on first call
	 * @param lockWaitTime the wait of {@code @DistributedLock} methods that set none
	 * @param groupWaitTime the wait of {@code @SerialGroup} methods that set none
	 */
	public LockAnnotationAdvisor(ObjectProvider<LockService> lockService, ObjectProvider<SerialGroups> serialGroups,
			Duration lockWaitTime, Duration groupWaitTime) {
		this(lockService::getObject, serialGroups::getObject, lockWaitTime, groupWaitTime);
	}

	private LockAnnotationAdvisor(Supplier<LockService> lockService, Supplier<SerialGroups> serialGroups,
			Duration lockWaitTime, Duration groupWaitTime) {
		this(new AnnotatedMethods<>(new LockedMethods(lockWaitTime, groupWaitTime)), lockService, serialGroups);
	}

	private LockAnnotationAdvisor(AnnotatedMethods<LockedMethod> methods, Supplier<LockService> lockService,
			Supplier<SerialGroups> serialGroups) {
		this(methods, new LockInterceptor(methods, lockService, serialGroups));
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
		this.interceptor.setBeanFactory(beanFactory);
	}

}
