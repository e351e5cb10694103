package dev.lockstep.autoconfigure.counter;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.lockstep.Counters;
import dev.lockstep.autoconfigure.ConditionalOnLockstepRedis;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.LockstepProperties;
import dev.lockstep.counter.RedisCounters;

/**
 * The {@link Counters} bean on the application's Redis connection, and its rejection counter
 * when Micrometer is there.
 */
@AutoConfiguration(after = LockstepAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnLockstepRedis
@ConditionalOnBooleanProperty(name = "lockstep.counters.enabled", matchIfMissing = true)
public final class CountersAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(Counters.class)
	RedisCounters counters(RedisConnectionFactory connectionFactory, LockstepProperties properties) {
		RedisCounters counters = new RedisCounters(connectionFactory);
		counters.setKeyPrefix(properties.keyPrefix());
		counters.setCommandTimeout(properties.commandTimeout());
		counters.setIdempotencyWindow(properties.counters().idempotencyWindow());
		return counters;
	}

	/** {@code lockstep.counter.rejections}, when Micrometer is there. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static final class CounterMetrics {

		@Bean
		CounterMeters lockstepCounterMeters(ObjectProvider<RedisCounters> counters, MeterRegistry registry) {
			// the application's own bean, if it has one, reports nothing
			return new CounterMeters(counters.getIfAvailable(), registry);
		}

	}

}
