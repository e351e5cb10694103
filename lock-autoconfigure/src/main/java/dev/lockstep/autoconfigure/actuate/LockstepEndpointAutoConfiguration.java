package dev.lockstep.autoconfigure.actuate;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.Counters;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.LockService;
import dev.lockstep.LockStateRegistry;
import dev.lockstep.SerialQueueRegistry;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.counter.CountersAutoConfiguration;
import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration;
import dev.lockstep.autoconfigure.queue.SerialQueueAutoConfiguration;
import dev.lockstep.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * The {@code lockstep} actuator endpoint, when Actuator is on the class path. Like every endpoint it
 * is off the web until {@code management.endpoints.web.exposure.include} names it. The endpoint
 * condition sits on the bean methods, so that this class is skipped without Actuator before that
 * condition's class is needed.
 */
@AutoConfiguration(after = { LockstepAutoConfiguration.class, JobGuardAutoConfiguration.class,
		SerialQueueAutoConfiguration.class, RateLimitAutoConfiguration.class, CountersAutoConfiguration.class })
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(LockService.class)
@ImportRuntimeHints(ActuatorHints.class)
public final class LockstepEndpointAutoConfiguration {

	/** How far back the endpoint and the health contributor count lost locks. */
	static final Duration LOSS_WINDOW = Duration.ofMinutes(15);

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(LockstepEndpoint.class)
	static RecentLockLosses recentLockLosses() {
		return new RecentLockLosses(LOSS_WINDOW);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	LockstepEndpoint lockstepEndpoint(LockService lockService, RedisConnectionFactory connectionFactory,
			ObjectProvider<JobGuardRegistry> jobGuard, ObjectProvider<RecentLockLosses> losses,
			ObjectProvider<SerialQueueRegistry> queues, ObjectProvider<RedisRateLimiter> rateLimiter,
			ObjectProvider<Counters> counters) {
		LockstepEndpoint endpoint = new LockstepEndpoint(redisMode(connectionFactory),
				(lockService instanceof LockStateRegistry registry) ? registry : null, losses.getIfUnique(),
				jobGuard.getIfUnique(), queues.getIfUnique());
		endpoint.limits(rateLimiter.getIfUnique(), counters.getIfUnique());
		return endpoint;
	}

	/** The id this instance writes into lock owners, or {@code null} for a lock service of the application's own. */
	static @Nullable String instanceId(LockService lockService) {
		return (lockService instanceof LockStateRegistry registry) ? registry.instanceId() : null;
	}

	static String redisMode(RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			if (lettuce.isClusterAware()) {
				return "cluster";
			}
			if (lettuce.getSentinelConfiguration() != null) {
				return "sentinel";
			}
		}
		return "standalone";
	}

}
