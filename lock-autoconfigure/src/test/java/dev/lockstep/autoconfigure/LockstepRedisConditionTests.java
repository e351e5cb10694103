package dev.lockstep.autoconfigure;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.lockstep.Counters;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.LockService;
import dev.lockstep.RateLimiter;
import dev.lockstep.SerialQueue;
import dev.lockstep.autoconfigure.counter.CountersAutoConfiguration;
import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration;
import dev.lockstep.autoconfigure.queue.SerialQueueAutoConfiguration;
import dev.lockstep.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each auto-configuration on the application's Redis connection ({@link ConditionalOnLockstepRedis})
 * is on with Lettuce, a connection and Lockstep enabled, and stays away without failing startup when
 * any of the three is missing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockstepRedisConditionTests {

	/** An auto-configuration and the bean that shows it is on. */
	private record Feature(Class<?> autoConfiguration, Class<?> bean) {
	}

	private static final List<Feature> FEATURES = List.of(new Feature(LockstepAutoConfiguration.class, LockService.class),
			new Feature(CountersAutoConfiguration.class, Counters.class),
			new Feature(RateLimitAutoConfiguration.class, RateLimiter.class),
			new Feature(JobGuardAutoConfiguration.class, JobGuardRegistry.class),
			new Feature(SerialQueueAutoConfiguration.class, SerialQueue.class));

	private static ApplicationContextRunner runner(Feature feature) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockstepAutoConfiguration.class, feature.autoConfiguration()));
	}

	private static ApplicationContextRunner onRedis(Feature feature) {
		return runner(feature).withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
					"spring.data.redis.port=" + TestRedis.standalone().port(),
					"lockstep.key-prefix=r" + UUID.randomUUID().toString().substring(0, 8) + ":");
	}

	@Test
	void onWithLettuceAConnectionAndLockstepEnabled() {
		for (Feature feature : FEATURES) {
			onRedis(feature).run((context) -> assertThat(context).as(feature.autoConfiguration().getSimpleName())
				.hasSingleBean(feature.bean()));
		}
	}

	@Test
	void offWhenLockstepIsDisabled() {
		for (Feature feature : FEATURES) {
			onRedis(feature).withPropertyValues("lockstep.enabled=false")
				.run((context) -> assertThat(context).as(feature.autoConfiguration().getSimpleName())
					.hasNotFailed()
					.doesNotHaveBean(feature.bean()));
		}
	}

	@Test
	void offWithoutARedisConnection() {
		for (Feature feature : FEATURES) {
			runner(feature).run((context) -> assertThat(context).as(feature.autoConfiguration().getSimpleName())
				.hasNotFailed()
				.doesNotHaveBean(feature.bean()));
		}
	}

	@Test
	void offWithoutLettuce() {
		for (Feature feature : FEATURES) {
			runner(feature).withClassLoader(new FilteredClassLoader("io.lettuce"))
				.withUserConfiguration(LockstepAutoConfigurationTests.OtherClientConnectionFactory.class)
				.run((context) -> assertThat(context).as(feature.autoConfiguration().getSimpleName())
					.hasNotFailed()
					.doesNotHaveBean(feature.bean()));
		}
	}

}
