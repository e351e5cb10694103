package dev.lockstep.aop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import dev.lockstep.LockContext;
import dev.lockstep.LockHandle;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * An observation handler of the application that throws while an annotated method's lock is held
 * (ending the acquisition's observation, starting the hold's): the call fails with the handler's
 * error, the method does not run, and the lock is released, not left held and renewed with no
 * handle to close it; nor is it left on the calling thread, where the next task of a pooled thread
 * would find it in {@link LockContext} and re-enter it. Real Redis, a real observation registry.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailingObservationHandlerTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final FailingHandler handler = new FailingHandler();

	private final ExecutorService elsewhere = Executors.newSingleThreadExecutor();

	private AnnotationConfigApplicationContext context;

	private Methods methods;

	private RedisLockService locks;

	@BeforeEach
	void start() {
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(this.handler);
		this.context = new AnnotationConfigApplicationContext();
		this.context.getBeanFactory().registerSingleton("testRedis", this.redis);
		this.context.getBeanFactory().registerSingleton("observations", observations);
		this.context.register(Application.class);
		this.context.refresh();
		this.methods = this.context.getBean(Methods.class);
		this.locks = this.context.getBean(RedisLockService.class);
	}

	@AfterEach
	void close() {
		this.elsewhere.shutdownNow();
		this.context.close();
	}

	/** The control: with a handler that does not throw, the method runs under its lock. */
	@Test
	void aHandlerThatDoesNotThrowLetsTheMethodRunUnderItsLock() throws Exception {
		assertThat(this.methods.blocking("control")).isEqualTo("blocking:control");
		assertThat(this.methods.reactive("control").block(Duration.ofSeconds(10))).isEqualTo("reactive:control");
		assertThat(this.methods.runs()).isEqualTo(2);
		assertFree("blocking:control");
		assertFree("reactive:control");
	}

	@Test
	void aBlockingMethodWhoseAcquisitionsObservationFailsToStopReleasesItsLock() throws Exception {
		this.handler.failOnStop = "lockstep.lock.acquire";
		assertThatIllegalStateException().isThrownBy(() -> this.methods.blocking("a"))
			.withMessage("handler failed on stop of lockstep.lock.acquire");
		assertReleasedAndNotRun("blocking:a");
	}

	@Test
	void aBlockingMethodWhoseHoldsObservationFailsToStartReleasesItsLock() throws Exception {
		this.handler.failOnStart = "lockstep.lock.hold";
		assertThatIllegalStateException().isThrownBy(() -> this.methods.blocking("b"))
			.withMessage("handler failed on start of lockstep.lock.hold");
		assertReleasedAndNotRun("blocking:b");
	}

	@Test
	void aReactiveMethodWhoseObservationsFailReleasesItsLock() throws Exception {
		this.handler.failOnStop = "lockstep.lock.acquire";
		assertThatIllegalStateException().isThrownBy(() -> this.methods.reactive("c").block(Duration.ofSeconds(10)))
			.withMessage("handler failed on stop of lockstep.lock.acquire");
		assertReleasedAndNotRun("reactive:c");
		this.handler.failOnStop = null;
		this.handler.failOnStart = "lockstep.lock.hold";
		assertThatIllegalStateException().isThrownBy(() -> this.methods.reactive("d").block(Duration.ofSeconds(10)))
			.withMessage("handler failed on start of lockstep.lock.hold");
		assertReleasedAndNotRun("reactive:d");
	}

	private void assertReleasedAndNotRun(String key) throws Exception {
		assertThat(this.methods.runs()).as("runs of the method").isZero();
		assertThat(LockContext.current()).as("the calling thread's lock").isEmpty();
		assertFree(key);
	}

	/** Another thread takes the lock within a few seconds (the release is sent without waiting). */
	private void assertFree(String key) throws Exception {
		Optional<LockHandle> taken = this.elsewhere
			.submit(() -> this.locks.tryAcquire(key, Duration.ofSeconds(5), Duration.ofSeconds(5)))
			.get(20, TimeUnit.SECONDS);
		assertThat(taken).as("lock '%s' taken on another thread", key).isPresent();
		taken.get().close();
	}

	/** Throws when the observation named in {@code failOnStart} starts, or the one in {@code failOnStop} stops. */
	static final class FailingHandler implements ObservationHandler<Observation.Context> {

		volatile String failOnStart;

		volatile String failOnStop;

		@Override
		public void onStart(Observation.Context context) {
			if (context.getName().equals(this.failOnStart)) {
				throw new IllegalStateException("handler failed on start of " + context.getName());
			}
		}

		@Override
		public void onStop(Observation.Context context) {
			if (context.getName().equals(this.failOnStop)) {
				throw new IllegalStateException("handler failed on stop of " + context.getName());
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	static class Methods {

		private final AtomicInteger runs = new AtomicInteger();

		// read through a method: a class-based proxy has fields of its own
		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(name = "blocking", key = "#key", waitTime = "0")
		public String blocking(String key) {
			this.runs.incrementAndGet();
			return LockContext.current().orElseThrow().key();
		}

		@DistributedLock(name = "reactive", key = "#key", waitTime = "0")
		public Mono<String> reactive(String key) {
			this.runs.incrementAndGet();
			return Mono.just("reactive:" + key);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(LockAnnotationProxies.class)
	static class Application {

		@Bean
		RedisLockService lockService(RedisFixture redis) {
			RedisLockService service = new RedisLockService(redis.factory());
			service.setKeyPrefix(redis.prefix());
			service.setShutdownTimeout(Duration.ZERO);
			return service;
		}

		@Bean
		Methods methods() {
			return new Methods();
		}

	}

}
