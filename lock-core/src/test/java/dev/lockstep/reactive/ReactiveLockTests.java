package dev.lockstep.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.ReactiveLockService;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.SerialGroup;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.lock.RedisReactiveLockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} and {@code @SerialGroup} on methods returning {@code Mono} and
 * {@code Flux}, and {@link ReactiveLockService}, on real Spring beans and a real Redis: held for as
 * long as the publisher runs, waited for without a thread, released on cancel after the upstream.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveLockTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private AnnotationConfigApplicationContext context;

	private Sections sections;

	private Counts counts;

	private RedisLockService locks;

	@BeforeEach
	void start() {
		this.context = LockingApplication.start(this.redis, Application.class);
		this.sections = this.context.getBean(Sections.class);
		this.counts = this.context.getBean(Counts.class);
		this.locks = this.context.getBean(RedisLockService.class);
	}

	@AfterEach
	void close() {
		this.context.close();
	}

	/**
	 * While a lock is held elsewhere, 100 calls subscribed on a scheduler of two threads all queue
	 * in Redis at once, and the scheduler's threads stay free: a lock waited for on a thread would
	 * let two queue at most and leave the scheduler with none. Once the lock is free, each gets its
	 * turn, one at a time, with a higher fencing token than every earlier one.
	 */
	@Test
	void aHundredWaitersOnATwoThreadSchedulerAllQueueWithoutBlockingItAndAllGetTheirTurn() {
		Scheduler twoThreads = Schedulers.newParallel("two-threads", 2);
		try {
			LockHandle holder = this.locks.acquire("section:k", Duration.ofSeconds(1));
			List<CompletableFuture<Long>> calls = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				calls.add(Mono.defer(() -> this.sections.section("k")).subscribeOn(twoThreads).toFuture());
			}
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.locks.keyState("section:k").waitersInAll() == 100);
			String ranOn = Mono.fromCallable(() -> Thread.currentThread().getName()).subscribeOn(twoThreads)
				.block(Duration.ofSeconds(2));
			assertThat(ranOn).startsWith("two-threads");
			assertThat(this.counts.entered).hasValue(0);

			holder.close();
			List<Long> tokens = calls.stream().map(CompletableFuture::join).sorted().toList();
			assertThat(tokens).doesNotHaveDuplicates().allSatisfy((token) -> assertThat(token).isGreaterThan(holder.fencingToken()));
			assertThat(this.counts.entered).hasValue(100);
			assertThat(this.counts.overlaps).as("overlaps").hasValue(0);
		}
		finally {
			twoThreads.dispose();
		}
	}

	/** The overlap count above means something: the same calls without the lock overlap. */
	@Test
	void theSameCallsWithoutTheLockOverlap() {
		List<CompletableFuture<Long>> calls = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			calls.add(this.sections.unlockedSection("k").toFuture());
		}
		calls.forEach(CompletableFuture::join);
		assertThat(this.counts.overlaps.get()).isPositive();
	}

	@Test
	void aCancelledSubscriberReleasesTheLockOnlyAfterItsUpstreamWasCancelled() {
		AtomicBoolean heldWhenUpstreamCancelled = new AtomicBoolean();
		Disposable subscriber = this.sections.endless("c", heldWhenUpstreamCancelled).subscribe();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.counts.ticks.get() > 2);
		assertThat(this.locks.keyState("endless:c").holderInstance()).isNotNull();

		subscriber.dispose();

		assertThat(heldWhenUpstreamCancelled).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.locks.keyState("endless:c").holderInstance() == null);
		int ticks = this.counts.ticks.get();
		try (LockHandle next = this.locks.acquire("endless:c", Duration.ofSeconds(1))) {
			assertThat(next.isHeld()).isTrue();
		}
		assertThat(this.counts.ticks.get()).isEqualTo(ticks);
	}

	@Test
	void aSubscriberCancelledWhileWaitingLeavesTheQueueAndTheMethodIsNeverCalled() {
		LockHandle holder = this.locks.acquire("section:w", Duration.ofSeconds(1));
		Disposable waiting = this.sections.section("w").subscribe();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.locks.keyState("section:w").waitersInAll() == 1);

		waiting.dispose();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.locks.keyState("section:w").waitersInAll() == 0);
		holder.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.locks.keyState("section:w").holderInstance() == null);
		assertThat(this.counts.entered).hasValue(0);
	}

	@Test
	void anErrorReleasesTheLockAndAWaitThatRunsOutFailsNamingTheMethod() {
		assertThat(this.sections.failing("e").onErrorResume(IllegalStateException.class, (ex) -> Mono.just("failed"))
			.block(Duration.ofSeconds(5))).isEqualTo("failed");
		assertThat(this.locks.keyState("failing:e").holderInstance()).isNull();

		try (LockHandle holder = this.locks.acquire("failing:e", Duration.ofSeconds(1))) {
			Mono<String> call = this.sections.failing("e");
			assertThat(call.map(Object::toString).onErrorResume(LockNotAcquiredException.class,
					(ex) -> Mono.just(ex.getMessage())).block(Duration.ofSeconds(5)))
				.contains("@DistributedLock on ReactiveLockTests.Sections.failing(String)")
				.contains("'failing:e'")
				.contains("the method was not run");
		}
	}

	@Test
	void aSerialGroupRunsOneCallAtATimeOnTheGroupsLock() {
		List<CompletableFuture<Long>> calls = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			calls.add(this.sections.groupTurn("g").toFuture());
		}
		calls.forEach(CompletableFuture::join);
		assertThat(this.counts.entered).hasValue(20);
		assertThat(this.counts.overlaps).hasValue(0);
		assertThat(calls.stream().map(CompletableFuture::join).distinct()).hasSize(20);
	}

	@Test
	void theServiceRunsAPipelineUnderTheLockWithItsHandleInTheContext() {
		ReactiveLockService reactive = new RedisReactiveLockService(this.locks);
		List<Long> seen = reactive
			.locked("direct", Duration.ofSeconds(1),
					(handle) -> ReactiveLockService.current().map((current) -> (current == handle) ? handle.fencingToken() : -1))
			.collectList()
			.block(Duration.ofSeconds(5));
		assertThat(seen).hasSize(1).allSatisfy((token) -> assertThat(token).isPositive());
		assertThat(this.locks.keyState("direct").holderInstance()).isNull();
		assertThat(reactive.tryAcquire("direct", Duration.ZERO, Duration.ofSeconds(5))
			.flatMap((handle) -> reactive.tryAcquire("direct", Duration.ZERO, Duration.ofSeconds(5))
				.map((second) -> "twice")
				.defaultIfEmpty("not twice")
				.flatMap((answer) -> reactive.release(handle).thenReturn(answer)))
			.block(Duration.ofSeconds(5))).isEqualTo("not twice");
		assertThat(ReactiveLockService.current().blockOptional(Duration.ofSeconds(1))).isEmpty();
	}

	/** What the sections saw; apart from them, since a class proxy has fields of its own. */
	static final class Counts {

		final AtomicInteger inside = new AtomicInteger();

		final AtomicInteger entered = new AtomicInteger();

		final AtomicInteger overlaps = new AtomicInteger();

		final AtomicInteger ticks = new AtomicInteger();

	}

	/** Methods whose sections count how many are inside at once. */
	static class Sections {

		private final Counts counts;

		Sections(Counts counts) {
			this.counts = counts;
		}

		@DistributedLock(name = "section", key = "#key", waitTime = "30s")
		public Mono<Long> section(String key) {
			return ReactiveLockService.current().flatMap(this::inside);
		}

		public Mono<Long> unlockedSection(String key) {
			return inside(null);
		}

		@SerialGroup(name = "turn", key = "#group", waitTime = "30s")
		public Mono<Long> groupTurn(String group) {
			return ReactiveLockService.current().flatMap(this::inside);
		}

		/**
		 * A section that ends on its terminal signal: the lock is held until that signal, and what
		 * {@code doFinally} does runs after the signal has gone downstream, so after the release.
		 */
		private Mono<Long> inside(LockHandle handle) {
			return Mono.fromCallable(() -> {
				this.counts.entered.incrementAndGet();
				if (this.counts.inside.incrementAndGet() != 1) {
					this.counts.overlaps.incrementAndGet();
				}
				return (handle != null) ? handle.fencingToken() : 0L;
			}).delayElement(Duration.ofMillis(3)).doOnTerminate(this.counts.inside::decrementAndGet);
		}

		@DistributedLock(name = "endless", key = "#key", waitTime = "5s")
		public Flux<Long> endless(String key, AtomicBoolean heldWhenUpstreamCancelled) {
			return ReactiveLockService.current()
				.flatMapMany((handle) -> Flux.interval(Duration.ofMillis(10))
					.doOnNext((tick) -> this.counts.ticks.incrementAndGet())
					.doOnCancel(() -> heldWhenUpstreamCancelled.set(handle.isHeld())));
		}

		@DistributedLock(name = "failing", key = "#key", waitTime = "200ms")
		public Mono<String> failing(String key) {
			return Mono.error(new IllegalStateException("failed"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Application {

		@Bean
		Counts counts() {
			return new Counts();
		}

		@Bean
		Sections sections(Counts counts) {
			return new Sections(counts);
		}

	}

}
