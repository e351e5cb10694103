package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.lockstep.LockHandle;
import dev.lockstep.LockUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reactive acquisition whose subscriber cancels once the lock is taken but before the handle
 * reached it (the handle on its way to a parallel-scheduler thread): the lock goes back at once,
 * rather than stay held by nobody and be renewed by the watchdog for as long as the service runs;
 * and a reactive waiter whose service stops, which ends rather than wait for ever.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveCancelTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisLockService> services = new ArrayList<>();

	@AfterEach
	void stop() {
		this.services.forEach(RedisLockService::stop);
	}

	/** A 3 s watchdog lease, renewed every second while the lock is held. */
	private RedisReactiveLockService reactive() {
		RedisLockService service = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (settings) -> {
			settings.setLeaseTime(Duration.ofSeconds(3));
			settings.setHeartbeatInterval(Duration.ofMillis(250));
		});
		this.services.add(service);
		return new RedisReactiveLockService(service);
	}

	@Test
	void aSubscriberThatCancelsWhileTheHandleWaitsForAParallelThreadLeavesNoLockHeld() throws Exception {
		RedisReactiveLockService reactive = reactive();
		String lockKey = this.redis.prefix() + "{k}";
		// the parallel scheduler's threads are busy for a moment, as under load
		CountDownLatch busy = new CountDownLatch(1);
		for (int i = 0; i < Schedulers.DEFAULT_POOL_SIZE * 2; i++) {
			Schedulers.parallel().schedule(() -> {
				try {
					busy.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
		}
		AtomicReference<LockHandle> delivered = new AtomicReference<>();
		Disposable subscription;
		try {
			subscription = reactive.acquire("k", Duration.ofSeconds(5)).subscribe(delivered::set);
			await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(this.redis.template().hasKey(lockKey)));
			Thread.sleep(200);
			// the subscriber goes away (a timeout, a client that disconnected) before the handle reached it
			subscription.dispose();
		}
		finally {
			busy.countDown();
		}
		// well within the 3 s lease, which the watchdog would renew for a handle nobody closed
		await().atMost(Duration.ofSeconds(2)).until(() -> !Boolean.TRUE.equals(this.redis.template().hasKey(lockKey)));
		assertThat(delivered.get()).as("the handle the cancelled subscriber saw").isNull();
	}

	@Test
	void aReactiveWaiterWhoseLockServiceStopsFailsAtOnce() throws Exception {
		RedisLockService holderService = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (settings) -> {
		});
		this.services.add(holderService);
		RedisReactiveLockService waiting = reactive();
		LockHandle held = holderService.acquire("k", Duration.ZERO);
		CompletableFuture<Object> outcome = new CompletableFuture<>();
		waiting.acquire("k", Duration.ofSeconds(20)).subscribe(outcome::complete, outcome::complete);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.redis.template().opsForList().size(this.redis.prefix() + "{k}:queue") == 1);
		this.services.get(1).stop();
		// before, nothing ended it: the wait's end was a task of the stopped service's timer
		assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(LockUnavailableException.class)
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.THROWABLE).hasMessageContaining("'k'");
		held.close();
	}

	/**
	 * Through {@code locked} (as the annotated methods do, with {@code usingWhen}): a handle that
	 * comes once the subscriber cancelled is released by the pipeline. A bare {@code acquire} can
	 * promise this only up to the subscriber: a value arriving as it cancels is dropped by Reactor's
	 * subscriber itself (see docs/reactive.md).
	 */
	@Test
	void pipelinesCancelledAtRandomMomentsOfTheirAcquisitionLeaveNoLockHeld() throws Exception {
		RedisReactiveLockService reactive = reactive();
		long seed = Long.getLong("lockstep.reactive.seed", System.nanoTime());
		Random random = new Random(seed);
		AtomicInteger ran = new AtomicInteger();
		for (int i = 0; i < 600; i++) {
			Disposable subscription = reactive.locked("k" + i, Duration.ofSeconds(1), (handle) -> Mono.fromRunnable(ran::incrementAndGet))
				.subscribe();
			LockSupport.parkNanos(random.nextInt(1_500_000));
			subscription.dispose();
		}
		// past the 3 s lease: a lock still there is renewed by the watchdog for a handle nobody holds
		Thread.sleep(3_500);
		assertThat(this.redis.keys()).as("locks left (seed %d; %d pipelines ran)", seed, ran.get()).isEmpty();
	}

}
