package dev.lockstep.autoconfigure.actuate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.lockstep.JobGuardRegistry;
import dev.lockstep.LockService;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.LockstepProperties;
import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration;

/**
 * The {@code lockstep} health contributor, when Spring Boot's health support is on the class path;
 * {@code management.health.lockstep.enabled=false} turns it off.
 */
@AutoConfiguration(after = { LockstepAutoConfiguration.class, JobGuardAutoConfiguration.class })
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
@ConditionalOnBean(LockService.class)
@ImportRuntimeHints(ActuatorHints.class)
public final class LockstepHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnEnabledHealthIndicator("lockstep")
	static RecentLockLosses recentLockLosses() {
		return new RecentLockLosses(LockstepEndpointAutoConfiguration.LOSS_WINDOW);
	}

	@Bean
	@ConditionalOnMissingBean(name = "lockstepHealthIndicator")
	@ConditionalOnEnabledHealthIndicator("lockstep")
	LockstepHealthIndicator lockstepHealthIndicator(RedisConnectionFactory connectionFactory, LockService lockService,
			ObjectProvider<JobGuardRegistry> jobGuard, RecentLockLosses losses, LockstepProperties properties) {
		String instance = LockstepEndpointAutoConfiguration.instanceId(lockService);
		JobGuardRegistry registry = jobGuard.getIfUnique();
		return new LockstepHealthIndicator(connectionFactory, properties.commandTimeout(), (instance != null) ? instance : "unknown",
				(registry != null) ? registry.instanceId() : null, losses);
	}

}
