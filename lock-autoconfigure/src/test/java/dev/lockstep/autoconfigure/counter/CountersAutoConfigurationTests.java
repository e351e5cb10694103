package dev.lockstep.autoconfigure.counter;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.lockstep.Counters;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.counter.RedisCounters;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The Counters bean wired by Boot, on a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CountersAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				CountersAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(),
				"lockstep.key-prefix=c" + UUID.randomUUID().toString().substring(0, 8) + ":");

	@Test
	void countsUnderTheKeyPrefixAndCountsRejectionsByName() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			Counters counters = context.getBean(Counters.class);
			assertThat(counters).isInstanceOf(RedisCounters.class);
			assertThat(counters.tryIncrement("signup:event-1", 2, 2)).isTrue();
			assertThat(counters.tryIncrement("signup:event-1", 2)).isFalse();
			assertThat(counters.tryIncrement("signup:event-2", 5, 2)).isFalse();
			assertThat(counters.current("signup:event-1")).isEqualTo(2);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("lockstep.counter.rejections").tag("name", "signup").counter().count()).isEqualTo(2);
			counters.decrement("signup:event-1", 2);
		});
	}

	@Test
	void bindsTheIdempotencyWindow() {
		this.runner.withPropertyValues("lockstep.counters.idempotency-window=300ms").run((context) -> {
			Counters counters = context.getBean(Counters.class);
			assertThat(counters.tryIncrement("seats", 1, 5, "m-1")).isTrue();
			assertThat(counters.tryIncrement("seats", 1, 5, "m-1")).isTrue();
			assertThat(counters.current("seats")).isEqualTo(1);
			// forgotten after the window bound from the property (the default is 10 minutes)
			await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).until(() -> {
				counters.tryIncrement("seats", 1, 5, "m-1");
				return counters.current("seats") == 2;
			});
			counters.decrement("seats", 5);
		});
	}

	@Test
	void aBadIdempotencyWindowStopsStartupNamingTheProperty() {
		this.runner.withPropertyValues("lockstep.counters.idempotency-window=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lockstep.counters.idempotency-window must be at least 1ms, was 0s"));
	}

	@Test
	void backsOffWhenDisabledOrWhenTheApplicationHasItsOwn() {
		this.runner.withPropertyValues("lockstep.counters.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(Counters.class));
		this.runner.withUserConfiguration(OwnCounters.class)
			.run((context) -> assertThat(context).hasSingleBean(Counters.class).hasBean("ownCounters"));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnCounters {

		@Bean
		RedisCounters ownCounters(RedisConnectionFactory connectionFactory) {
			return new RedisCounters(connectionFactory);
		}

	}

}
