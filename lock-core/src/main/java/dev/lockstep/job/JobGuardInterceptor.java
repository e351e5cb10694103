package dev.lockstep.job;

import java.time.Instant;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobGuardExecutor;
import dev.lockstep.aop.AnnotatedMethods;

/**
 * Hands each firing of a guarded method to the {@link JobGuardExecutor}, which runs it only when
 * this instance wins the firing; otherwise the call returns at once
 * ({@code null} for a method that returns something). A firing left to another instance is
 * handed back to this one later if that instance never starts it.
 */
final class JobGuardInterceptor implements MethodInterceptor {

	private final AnnotatedMethods<GuardedJob> jobs;

	private final ObjectProvider<JobGuardExecutor> guard;

	JobGuardInterceptor(AnnotatedMethods<GuardedJob> jobs, ObjectProvider<JobGuardExecutor> guard) {
		this.jobs = jobs;
		this.guard = guard;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		GuardedJob job = this.jobs.find(invocation.getMethod(), (target != null) ? AopUtils.getTargetClass(target) : null);
		if (job == null) {
			return invocation.proceed();
		}
		Firing firing = Firing.current();
		MethodInvocation later = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : null;
		Instant cronSlot = (firing != null && firing.cron()) ? firing.scheduledTime() : null;
		return this.guard.getObject().execute(job, cronSlot, invocation::proceed, (later != null) ? later::proceed : null);
	}

}
