package dev.lockstep.job;

import java.time.Duration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobGuardExecutor;
import dev.lockstep.aop.AnnotatedMethodAdvisor;
import dev.lockstep.aop.AnnotatedMethods;

/**
 * Applies the job guard to {@code @JobGuard} methods (and to every {@code @Scheduled} method when
 * all are guarded). Register it as an infrastructure bean; the guard itself is looked up on first use.
 */
public final class JobGuardAdvisor extends AnnotatedMethodAdvisor {

	/**
	 * @param jobs where the jobs found go (the one list the job guard reads)
	 * @param guard what runs the firings (Lockstep's {@link RedisJobGuard}, or the application's own
	 * executor), resolved on first firing
	 * @param lockAtMostFor the limit of jobs that set none
	 * @param lockAtLeastFor the minimum hold of jobs that set none
	 * @param guardAllScheduled whether {@code @Scheduled} methods without {@code @JobGuard} are guarded too
	 */
	public JobGuardAdvisor(GuardedJobs jobs, ObjectProvider<JobGuardExecutor> guard, Duration lockAtMostFor,
			Duration lockAtLeastFor, boolean guardAllScheduled) {
		this(new AnnotatedMethods<>(new JobDefinitions(jobs, lockAtMostFor, lockAtLeastFor, guardAllScheduled)), guard);
	}

	private JobGuardAdvisor(AnnotatedMethods<GuardedJob> methods, ObjectProvider<JobGuardExecutor> guard) {
		super(methods, new JobGuardInterceptor(methods, guard));
		setOrder(Ordered.LOWEST_PRECEDENCE - 100);
	}

}
