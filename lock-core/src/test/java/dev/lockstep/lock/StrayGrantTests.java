package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.LockHandle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A heartbeat that finds a lock held by an owner of its own instance that no longer waits takes
 * it for a grant made to nobody and passes it on. A single attempt in flight is such an owner
 * until its thread records the lock: the heartbeat must not pass that lock on.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StrayGrantTests {

	private static final int TRIALS = Integer.getInteger("lockstep.stray-grant.trials", 100);

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisLockService> services = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.services.forEach(RedisLockService::stop);
	}

	private RedisLockService service(Consumer<RedisLockService> settings) {
		RedisLockService service = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), settings);
		this.services.add(service);
		return service;
	}

	/**
	 * Redis loses a lock's keys (a restart without persistence) while a waiter of instance X waits
	 * on it; a single attempt of X then takes the lock fresh, and X's next heartbeat, visiting the
	 * waiter, finds that attempt holding. The attempt's handle must be the lock's one holder: never
	 * a handle that says held while Redis holds the lock for the requeued waiter.
	 */
	@Test
	void aSingleAttemptThatTakesALockFreshIsNotReleasedByItsOwnInstancesHeartbeat() throws Exception {
		Consumer<RedisLockService> fast = (service) -> service.setHeartbeatInterval(Duration.ofMillis(20));
		RedisLockService other = service(fast);
		RedisLockService x = service(fast);
		int twoHolders = 0;
		int raced = 0;
		// busy threads, so that a thread woken by a reply waits for a core as on a loaded machine: the
		// window between the single attempt's reply and its thread recording the lock grows from
		// microseconds to milliseconds
		java.util.concurrent.atomic.AtomicBoolean spinning = new java.util.concurrent.atomic.AtomicBoolean(true);
		for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
			this.threads.submit(() -> {
				long spins = 0;
				while (spinning.get()) {
					spins++;
				}
				return spins;
			});
		}
		for (int trial = 0; trial < TRIALS; trial++) {
			String key = "k" + trial;
			LockKeys keys = LockKeys.of(this.redis.prefix(), key);
			LockHandle held = other.acquire(key, Duration.ZERO);
			Future<Long> waiter = this.threads.submit(() -> {
				try (LockHandle handle = x.acquire(key, Duration.ofSeconds(30))) {
					return handle.fencingToken();
				}
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.template().opsForList().size(keys.queue()) == 1);
			// long enough to be visited by heartbeats
			Thread.sleep(60);
			this.redis.template().delete(keys.all());
			Optional<LockHandle> single = x.tryAcquire(key, Duration.ZERO, Duration.ofSeconds(30));
			if (single.isEmpty()) {
				// a heartbeat came first and the waiter, queued again, took the free lock: not this case
				raced++;
				held.close();
				waiter.get(10, TimeUnit.SECONDS);
				continue;
			}
			// a few heartbeats: one visits the waiter and finds the single attempt holding
			Thread.sleep(80);
			String value = this.redis.template().opsForValue().get(keys.lock());
			boolean heldForSingle = value != null && value.endsWith(":" + single.get().fencingToken());
			if (single.get().isHeld() && !heldForSingle) {
				twoHolders++;
			}
			single.get().close();
			held.close();
			waiter.get(10, TimeUnit.SECONDS);
		}
		spinning.set(false);
		assertThat(raced).as("trials where the waiter took the lock before the single attempt").isLessThan(TRIALS / 2);
		assertThat(twoHolders).as("trials of %d where the single attempt's handle said held while Redis held the lock "
				+ "for someone else", TRIALS).isZero();
	}

}
