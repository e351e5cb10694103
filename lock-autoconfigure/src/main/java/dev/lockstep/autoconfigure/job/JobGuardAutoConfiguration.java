package dev.lockstep.autoconfigure.job;


import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Fallback;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.lockstep.autoconfigure.JobGuardProperties;
import dev.lockstep.JobGuardExecutor;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.LockListener;
import dev.lockstep.autoconfigure.ConditionalOnLockstepRedis;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.LockstepInstanceId;
import dev.lockstep.autoconfigure.LockstepProperties;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.job.GuardedJobs;
import dev.lockstep.job.JobGuardAdvisor;
import dev.lockstep.job.RedisJobGuard;
import dev.lockstep.job.FiringTrackingConfigurer;

/**
 * The job guard behind {@code @JobGuard}: one run per firing of a scheduled job across all
 * instances, on the application's Redis connection.
 */
@AutoConfiguration(after = LockstepAutoConfiguration.class)
@ConditionalOnLockstepRedis
@ConditionalOnBooleanProperty(name = "lockstep.job-guard.enabled", matchIfMissing = true)
public final class JobGuardAutoConfiguration {

	/** The one list of guarded jobs: the advisor fills it, the guard reads it. */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static GuardedJobs lockstepGuardedJobs() {
		return new GuardedJobs();
	}

	/** Static and bound straight from the environment: advisors are created before most beans. */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static JobGuardAdvisor jobGuardAdvisor(GuardedJobs jobs, ObjectProvider<JobGuardExecutor> jobGuard,
			Environment environment) {
		JobGuardProperties properties = Binder.get(environment)
			.bindOrCreate("lockstep", LockstepProperties.class)
			.jobGuard();
		return new JobGuardAdvisor(jobs, jobGuard, properties.lockAtMostFor(), properties.lockAtLeastFor(),
				properties.guardAllScheduled());
	}

	/**
	 * The guard, which is also the job records' registry. Backs off for an application's own
	 * {@link RedisJobGuard}; beside an application's own {@link JobGuardRegistry} or
	 * {@link JobGuardExecutor} it stays as a fallback, so that the application's bean is the one
	 * injected and used (guarded methods go through the executor the advisor resolves).
	 */
	@Bean
	@Fallback
	@ConditionalOnMissingBean(RedisJobGuard.class)
	RedisJobGuard jobGuard(RedisConnectionFactory connectionFactory, GuardedJobs jobs, LockstepProperties properties,
			ObjectProvider<LockListener> listeners, ObjectProvider<ObservationRegistry> observations, Environment environment,
			ObjectProvider<LockstepInstanceId> instanceId) {
		RedisJobGuard jobGuard = new RedisJobGuard(connectionFactory, jobs);
		JobGuardProperties settings = properties.jobGuard();
		jobGuard.setKeyPrefix(properties.keyPrefix() + scope(settings, environment));
		jobGuard.setCommandTimeout(properties.commandTimeout());
		jobGuard.setSkewTolerance(settings.skewTolerance());
		jobGuard.setShutdownTimeout(settings.shutdownTimeout());
		jobGuard.setObservationRegistry(observations.getIfUnique(() -> ObservationRegistry.NOOP));
		jobGuard.setInstanceId(instanceId.getIfAvailable(() -> LockstepInstanceId.of(properties)).value());
		LockstepAutoConfiguration.combined(listeners).ifPresent(jobGuard::setListener);
		return jobGuard;
	}

	/**
	 * The part of the job guard's keys that keeps two services' jobs of one name apart: the scope
	 * ({@code lockstep.job-guard.scope}, else {@code spring.application.name}) and a colon, or
	 * nothing when neither is set or the scope is set empty.
	 */
	static String scope(JobGuardProperties settings, Environment environment) {
		String scope = settings.scope();
		String from = "lockstep.job-guard.scope";
		if (scope == null) {
			scope = environment.getProperty("spring.application.name");
			from = "spring.application.name";
		}
		if (scope == null || scope.isBlank()) {
			return "";
		}
		return NamingRules.insideHashTag(from + " (the job guard's scope unless lockstep.job-guard.scope is set)", scope)
				+ ":";
	}

	@Bean
	@ConditionalOnMissingBean
	FiringTrackingConfigurer lockstepScheduledFirings() {
		return new FiringTrackingConfigurer();
	}

	/** Warns, naming them, about guarded jobs that never fire because scheduling is not enabled. */
	@Bean
	static SchedulingCheck lockstepSchedulingCheck(ListableBeanFactory beans, GuardedJobs jobs) {
		return new SchedulingCheck(beans, jobs);
	}

}
