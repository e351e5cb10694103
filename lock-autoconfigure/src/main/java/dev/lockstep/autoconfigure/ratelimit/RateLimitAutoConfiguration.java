package dev.lockstep.autoconfigure.ratelimit;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.lockstep.RateLimiter;
import dev.lockstep.autoconfigure.ConditionalOnLockstepRedis;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.LockstepProperties;
import dev.lockstep.ratelimit.RateLimitAdvisor;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * The {@link RateLimiter} bean on the application's Redis connection, the advisor behind
 * {@code @RateLimited}, the decisions counter when Micrometer is there, and in a Spring MVC or WebFlux
 * application the 429 answer to a refused call.
 */
@AutoConfiguration(after = LockstepAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnLockstepRedis
@ConditionalOnBooleanProperty(name = "lockstep.rate-limit.enabled", matchIfMissing = true)
public final class RateLimitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(RateLimiter.class)
	RedisRateLimiter rateLimiter(RedisConnectionFactory connectionFactory, LockstepProperties properties) {
		RedisRateLimiter limiter = new RedisRateLimiter(connectionFactory);
		limiter.setKeyPrefix(properties.keyPrefix());
		limiter.setCommandTimeout(properties.commandTimeout());
		limiter.setWhenUnavailable(properties.rateLimit().whenUnavailable());
		return limiter;
	}

	/** Static: advisors are created before most beans. */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static RateLimitAdvisor rateLimitAdvisor(ObjectProvider<RateLimiter> rateLimiter) {
		return new RateLimitAdvisor(rateLimiter);
	}

	/** {@code lockstep.rate-limit.calls}, when Micrometer is there. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static final class RateLimitMetrics {

		@Bean
		RateLimitMeters lockstepRateLimitMeters(ObjectProvider<RedisRateLimiter> limiter, MeterRegistry registry) {
			// the application's own bean, if it has one, reports nothing
			return new RateLimitMeters(limiter.getIfAvailable(), registry);
		}

	}

	/** 429 Too Many Requests for a refused call in a Spring MVC or WebFlux application. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
	static final class RateLimitWeb {

		@Bean
		@ConditionalOnMissingBean
		RateLimitExceededHandler lockstepRateLimitExceededHandler() {
			return new RateLimitExceededHandler();
		}

	}

}
