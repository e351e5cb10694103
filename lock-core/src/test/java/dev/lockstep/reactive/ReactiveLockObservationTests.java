package dev.lockstep.reactive;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.lockstep.LockHandle;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.SerialGroup;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Micrometer observations of {@code @DistributedLock} and {@code @SerialGroup} methods returning
 * {@code Mono}/{@code Flux}, on a real observation registry (Micrometer's test registry, which also
 * checks that each observation is started once and stopped once) and a real Redis: the blocking
 * path's names and tags, the hold spanning the publisher.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReactiveLockObservationTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private AnnotationConfigApplicationContext context;

	private Methods methods;

	private RedisLockService locks;

	@BeforeEach
	void start() {
		Methods.holdOpenInside = false;
		this.context = LockingApplication.start(this.redis, Application.class, this.observations);
		this.methods = this.context.getBean(Methods.class);
		this.locks = this.context.getBean(RedisLockService.class);
	}

	@AfterEach
	void close() {
		this.context.close();
	}

	@Test
	void theHoldIsOpenWhileThePublisherRunsAndIsTheCurrentObservationInItsContext() {
		Observation seenInside = this.methods.section("k").block(Duration.ofSeconds(5));

		TestObservationRegistryAssert.assertThat(this.observations)
			.hasNumberOfObservationsWithNameEqualTo("lockstep.lock.acquire", 1)
			.hasNumberOfObservationsWithNameEqualTo("lockstep.lock.hold", 1)
			.hasObservationWithNameEqualTo("lockstep.lock.acquire").that()
			.hasLowCardinalityKeyValue("lockstep.lock.name", "section")
			.hasLowCardinalityKeyValue("lockstep.lock.kind", "lock")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasBeenStopped()
			.backToTestObservationRegistry()
			.hasObservationWithNameEqualTo("lockstep.lock.hold").that()
			.hasContextualNameEqualTo("locked section")
			.hasLowCardinalityKeyValue("lockstep.lock.name", "section")
			.hasLowCardinalityKeyValue("lockstep.lock.kind", "lock")
			.doesNotHaveError()
			.hasBeenStopped();
		assertThat(seenInside).as("the current observation inside the method").isNotNull();
		assertThat(seenInside.getContext().getName()).isEqualTo("lockstep.lock.hold");
		assertThat(Methods.holdOpenInside).as("the hold was open while the publisher ran").isTrue();
	}

	@Test
	void aFailingFluxStopsItsHoldWithTheError() {
		assertThat(this.methods.failing("f").onErrorResume((ex) -> Flux.just("failed")).collectList()
			.block(Duration.ofSeconds(5))).containsExactly("one", "failed");
		TestObservationRegistryAssert.assertThat(this.observations)
			.hasObservationWithNameEqualTo("lockstep.lock.hold").that()
			.hasLowCardinalityKeyValue("lockstep.lock.kind", "serial-group")
			.hasError()
			.hasBeenStopped();
	}

	@Test
	void aWaitThatRunsOutIsNotAcquiredAndACancelledWaitIsCancelledNeitherWithAHold() {
		try (LockHandle holder = this.locks.acquire("section:k", Duration.ofSeconds(1))) {
			assertThat(this.methods.impatient("k").map(Object::toString).onErrorResume((ex) -> Mono.just("not run"))
				.block(Duration.ofSeconds(5))).isEqualTo("not run");
			TestObservationRegistryAssert.assertThat(this.observations)
				.hasObservationWithNameEqualTo("lockstep.lock.acquire").that()
				.hasLowCardinalityKeyValue("outcome", "not_acquired")
				.hasError()
				.hasBeenStopped();

			Disposable waiting = this.methods.section("k").subscribe();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.locks.keyState("section:k").waitersInAll() == 1);
			waiting.dispose();
			TestObservationRegistryAssert.assertThat(this.observations)
				.hasNumberOfObservationsWithNameEqualTo("lockstep.lock.acquire", 2)
				.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("outcome", "cancelled"))
				.hasNumberOfObservationsWithNameEqualTo("lockstep.lock.hold", 0);
		}
	}

	/** Methods that look at their observations from inside. */
	static class Methods {

		private final TestObservationRegistry observations;

		/** Static: a class proxy has fields of its own, which the target's methods never set. */
		static volatile boolean holdOpenInside;

		Methods(TestObservationRegistry observations) {
			this.observations = observations;
		}

		@DistributedLock(name = "section", key = "#key", waitTime = "5s")
		public Mono<Observation> section(String key) {
			return Mono.deferContextual((context) -> {
				holdOpenInside = isHoldOpen();
				return Mono.delay(Duration.ofMillis(20))
					.then(Mono.justOrEmpty(context.<Observation>getOrEmpty("micrometer.observation")))
					.doOnNext((observation) -> holdOpenInside &= isHoldOpen());
			});
		}

		@DistributedLock(name = "section", key = "#key", waitTime = "100ms")
		public Mono<Observation> impatient(String key) {
			return Mono.empty();
		}

		@SerialGroup(name = "failing", key = "#key", waitTime = "5s")
		public Flux<String> failing(String key) {
			return Flux.concat(Flux.just("one"), Flux.error(new IllegalStateException("failed")));
		}

		private boolean isHoldOpen() {
			try {
				TestObservationRegistryAssert.assertThat(this.observations)
					.hasObservationWithNameEqualTo("lockstep.lock.hold").that().hasBeenStarted().isNotStopped();
				return true;
			}
			catch (AssertionError ex) {
				return false;
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Application {

		@Bean
		Methods methods(TestObservationRegistry observations) {
			return new Methods(observations);
		}

	}

}
