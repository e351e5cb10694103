package dev.lockstep.job;

import java.time.Duration;
import java.util.List;

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

	private final JobDefinitions jobs;

	/**
	 * @param guard what runs the firings (Lockstep's {@link RedisJobGuard}, or the application's own
	 * executor), resolved on first firing
	 * @param lockAtMostFor the limit of jobs that set none
	 * @param lockAtLeastFor the minimum hold of jobs that set none
	 * @param guardAllScheduled whether {@code @Scheduled} methods without {@code @JobGuard} are guarded too
	 */
	public JobGuardAdvisor(ObjectProvider<JobGuardExecutor> guard, Duration lockAtMostFor, Duration lockAtLeastFor,
			boolean guardAllScheduled) {
		this(new JobDefinitions(lockAtMostFor, lockAtLeastFor, guardAllScheduled), guard);
	}

	private JobGuardAdvisor(JobDefinitions jobs, ObjectProvider<JobGuardExecutor> guard) {
		this(jobs, new AnnotatedMethods<>(jobs), guard);
	}

	private JobGuardAdvisor(JobDefinitions jobs, AnnotatedMethods<GuardedJob> methods, ObjectProvider<JobGuardExecutor> guard) {
		super(methods, new JobGuardInterceptor(methods, guard));
		this.jobs = jobs;
		setOrder(Ordered.LOWEST_PRECEDENCE - 100);
	}

	/** The guarded jobs found so far (all of them once the application context has started). */
	public List<GuardedJob> jobs() {
		return this.jobs.all();
	}

}
