package dev.lockstep.job;

import java.time.Instant;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.KotlinDetector;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobGuardExecutor;
import dev.lockstep.aop.AnnotatedMethodInterceptor;
import dev.lockstep.aop.AnnotatedMethods;
import dev.lockstep.internal.ReactiveTypes;

/**
 * Hands each firing of a guarded method to the {@link JobGuardExecutor}, which runs it only when
 * this instance wins the firing; otherwise the call returns at once
 * ({@code null} for a method that returns something). A firing left to another instance is
 * handed back to this one later if that instance never starts it. A method returning {@code Mono}
 * or {@code Flux} (a reactive {@code @Scheduled} method, which Spring calls once and subscribes to
 * at each firing) returns a publisher that takes each firing through the guard on subscription and
 * keeps the guard until the method's own publisher completes: the firing's thread waits for it, as
 * for a blocking job. The method's publisher must be cold (subscribed again at each firing). A
 * Kotlin {@code suspend} method is guarded the same way, each firing's call held until it returns.
 */
final class JobGuardInterceptor extends AnnotatedMethodInterceptor<GuardedJob, JobGuardExecutor> {

	JobGuardInterceptor(AnnotatedMethods<GuardedJob> jobs, ObjectProvider<JobGuardExecutor> guard) {
		super(jobs, guard::getObject);
	}

	@Override
	protected @Nullable Object invoke(MethodInvocation invocation, GuardedJob job) throws Throwable {
		Class<?> returnType = invocation.getMethod().getReturnType();
		boolean suspending = KotlinDetector.isSuspendingFunction(invocation.getMethod());
		if (suspending || ReactiveTypes.isReactorPublisher(returnType)) {
			// Spring calls a reactive @Scheduled method once and subscribes to its publisher at each
			// firing, and a suspend one once per firing, its proxy handing us the call as a Mono and
			// awaiting what we return: the guard goes around each subscription, and is held until
			// the publisher completes
			Object publisher = invocation.proceed();
			boolean one = suspending ? !ReactiveTypes.suspendsForFlow(invocation.getMethod())
					: ReactiveJobs.emitsOne(returnType);
			return ReactiveJobs.guarded(one, () -> {
				TriggerFiring firing = TriggerFiring.current();
				Instant slot = (firing != null && firing.cron()) ? firing.scheduledTime() : null;
				JobGuardExecutor.Body body = suspending ? () -> ReactiveJobs.suspendedCompleted(publisher)
						: () -> ReactiveJobs.completed(publisher);
				service().execute(job, slot, body, body);
			});
		}
		TriggerFiring firing = TriggerFiring.current();
		MethodInvocation later = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : null;
		Instant cronSlot = (firing != null && firing.cron()) ? firing.scheduledTime() : null;
		return service().execute(job, cronSlot, invocation::proceed, (later != null) ? later::proceed : null);
	}

}
