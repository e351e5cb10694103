package dev.lockstep.autoconfigure.reactive;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.ReactiveLockService;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/** The reactive lock service is there with Reactor, and nothing reactive is without it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveLockAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				ReactiveLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(),
				"lockstep.key-prefix=r" + UUID.randomUUID().toString().substring(0, 8) + ":");

	@Test
	void withReactorTheReactiveServiceTakesTheSameLocks() {
		this.runner.run((context) -> {
			ReactiveLockService reactive = context.getBean(ReactiveLockService.class);
			try (LockHandle held = context.getBean(LockService.class).acquire("orders:1", Duration.ZERO)) {
				assertThat(reactive.tryAcquire("orders:1", Duration.ZERO, Duration.ofSeconds(5))
					.blockOptional(Duration.ofSeconds(5))).isEmpty();
			}
			LockHandle handle = reactive.acquire("orders:1", Duration.ofSeconds(1)).block(Duration.ofSeconds(5));
			assertThat(handle.isHeld()).isTrue();
			reactive.release(handle).block(Duration.ofSeconds(5));
			assertThat(handle.isHeld()).isFalse();
		});
	}

	@Test
	void withoutReactorThereIsNoReactiveServiceAndTheLockServiceStillWorks() {
		this.runner.withClassLoader(new FilteredClassLoader("reactor.core")).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(ReactiveLockService.class).hasSingleBean(LockService.class);
			try (LockHandle handle = context.getBean(LockService.class).acquire("orders:2", Duration.ZERO)) {
				assertThat(handle.isHeld()).isTrue();
			}
		});
	}

	@Test
	void anApplicationsOwnReactiveServiceIsKept() {
		this.runner.withBean("own", ReactiveLockService.class, () -> new ReactiveLockService() {
			@Override
			public reactor.core.publisher.Mono<LockHandle> acquire(String key, Duration waitTime) {
				return reactor.core.publisher.Mono.empty();
			}

			@Override
			public reactor.core.publisher.Mono<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime) {
				return reactor.core.publisher.Mono.empty();
			}
		}).run((context) -> assertThat(context).hasSingleBean(ReactiveLockService.class).hasBean("own"));
	}

}
