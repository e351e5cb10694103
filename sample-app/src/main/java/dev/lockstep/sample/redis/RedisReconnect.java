package dev.lockstep.sample.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.Delay;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lettuce reconnects within 2 s of Redis returning, not up to 30 s (its default back-off doubles
 * up to 30 s between attempts): while it is disconnected every Lockstep call fails at once with a
 * 503, so this is how long the sample answers 503 after an outage. The setting is the
 * application's, for all its Redis connections; Lockstep leaves it as it is (docs/operations.md,
 * Redis outages).
 */
@Configuration(proxyBeanMethods = false)
class RedisReconnect {

	@Bean
	ClientResourcesBuilderCustomizer fastReconnect() {
		// 100 ms, doubling, at most 2 s between attempts
		return (builder) -> builder
			.reconnectDelay(Delay.exponential(Duration.ofMillis(100), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS));
	}

}
