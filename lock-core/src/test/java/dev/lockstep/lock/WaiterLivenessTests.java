package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.LockHandle;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The heartbeats that keep queue entries alive, in the situations where they could go wrong: a
 * liveness deadline left over from an earlier wait, a wake-up subscription that is down, a
 * lock reported lost that comes back, and the short lease of a hand-over.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WaiterLivenessTests {

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

	private List<String> queue(String key) {
		return this.redis.template().opsForList().range(this.redis.prefix() + "{" + key + "}:queue", 0, -1);
	}

	/**
	 * A wait queue that never empties, under steady contention whose waits are shorter than a
	 * heartbeat interval (the heartbeat visits only waiters that waited a whole interval), keeps its
	 * time-to-live. It used to expire 20 intervals after it was made, dropping every waiter's place:
	 * they waited up to an interval to queue again, at the back, while newcomers took the lock.
	 */
	@Test
	void aWaitQueueThatNeverEmptiesUnderShortWaitsDoesNotExpire() throws Exception {
		// a queue lives 20 intervals: 1 s
		RedisLockService service = service((s) -> s.setHeartbeatInterval(Duration.ofMillis(50)));
		String queue = this.redis.prefix() + "{hot}:queue";
		TestRedis.Endpoint endpoint = this.redis.endpoint();
		RedisClient client = RedisClient.create(RedisURI.create(endpoint.host(), endpoint.port()));
		List<String> events = new CopyOnWriteArrayList<>();
		try (StatefulRedisPubSubConnection<String, String> notifications = client.connectPubSub();
				StatefulRedisConnection<String, String> commands = client.connect()) {
			commands.sync().configSet("notify-keyspace-events", "Kx");
			notifications.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					events.add(message);
				}

			});
			notifications.sync().subscribe("__keyspace@0__:" + queue);
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
			List<Future<Integer>> workers = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				workers.add(this.threads.submit(() -> {
					int held = 0;
					while (System.nanoTime() - until < 0) {
						try (LockHandle handle = service.acquire("hot", Duration.ofSeconds(10))) {
							Thread.sleep(2);
							held++;
						}
					}
					return held;
				}));
			}
			int held = 0;
			for (Future<Integer> worker : workers) {
				held += worker.get(30, TimeUnit.SECONDS);
			}
			assertThat(held).as("acquisitions over 4 s, in turn").isGreaterThan(200);
			assertThat(events).as("what befell the wait queue (%s) over four of its lifetimes", queue)
				.doesNotContain("expired");
		}
		finally {
			try (StatefulRedisConnection<String, String> commands = client.connect()) {
				commands.sync().configSet("notify-keyspace-events", "");
			}
			client.shutdown();
		}
	}

	/**
	 * A waiter woken soon after it queued holds the hand-over's short grant lease at once and
	 * the watchdog extends it to the full lease before it runs out; one woken later confirms the
	 * grant first, which extends it to the full lease before its handle says held. Redis shows
	 * which path each took: the lease left right after the acquisition.
	 */
	@Test
	void aWaiterWokenSoonHoldsItsGrantAtOnceAndTheWatchdogKeepsItOneWokenLateConfirmsFirst() throws Exception {
		// heartbeats every 100 ms: hand-overs carry a 500 ms grant lease; the full lease is 30 s
		Consumer<RedisLockService> fast = (service) -> service.setHeartbeatInterval(Duration.ofMillis(100));
		RedisLockService holder = service(fast);
		RedisLockService waiter = service(fast);
		RedisLockService other = service(fast);
		String lock = this.redis.prefix() + "{k}";
		for (boolean wokenSoon : new boolean[] { true, false }) {
			Future<LockHandle> waiting;
			try (LockHandle held = holder.acquire("k", Duration.ZERO)) {
				waiting = this.threads.submit(() -> waiter.acquire("k", Duration.ofSeconds(20)));
				await().atMost(Duration.ofSeconds(10)).until(() -> queue("k").size() == 1);
				if (!wokenSoon) {
					// past a third of the grant lease since the waiter queued
					Thread.sleep(400);
				}
			}
			LockHandle handle = waiting.get(20, TimeUnit.SECONDS);
			long leaseLeft = this.redis.template().getExpire(lock, TimeUnit.MILLISECONDS);
			if (wokenSoon) {
				assertThat(leaseLeft).as("the grant lease, not yet extended").isBetween(1L, 500L);
				// four grant leases later: renewed by the watchdog, never lost
				Thread.sleep(2000);
				assertThat(this.redis.template().getExpire(lock, TimeUnit.MILLISECONDS)).as("extended to the full lease")
					.isGreaterThan(20_000L);
			}
			else {
				assertThat(leaseLeft).as("confirmed and extended before the handle said held").isGreaterThan(20_000L);
			}
			assertThat(handle.isHeld()).isTrue();
			assertThat(other.tryAcquire("k", Duration.ZERO, Duration.ofSeconds(30))).as("held by the waiter").isEmpty();
			assertThat(this.redis.template().opsForValue().get(lock)).startsWith(waiter.getInstanceId() + ":");
			handle.close();
		}
	}

	@Test
	void aDeadlineLeftFromAnEarlierWaitDoesNotCostALiveWaiterItsPlace() throws Exception {
		Consumer<RedisLockService> fast = (service) -> service.setHeartbeatInterval(Duration.ofMillis(100));
		RedisLockService holder = service(fast);
		RedisLockService a = service(fast);
		RedisLockService b = service(fast);
		try (LockHandle held = holder.acquire("k", Duration.ZERO)) {
			Future<?> b1 = this.threads.submit(() -> b.acquire("k", Duration.ofSeconds(20)).close());
			await().atMost(Duration.ofSeconds(10)).until(() -> queue("k").size() == 1);
			// a waits long enough to be heartbeated, gives up, and its liveness runs out while b keeps the hash alive
			assertThat(a.tryAcquire("k", Duration.ofMillis(400), Duration.ofSeconds(30))).isEmpty();
			Thread.sleep(700);
			Future<?> a2 = this.threads.submit(() -> a.acquire("k", Duration.ofSeconds(20)).close());
			await().atMost(Duration.ofSeconds(10)).until(() -> queue("k").size() == 2);
			Future<?> b2 = this.threads.submit(() -> b.acquire("k", Duration.ofSeconds(20)).close());
			await().atMost(Duration.ofSeconds(10)).until(() -> queue("k").size() == 3);
			Thread.sleep(600);
			List<String> order = queue("k");
			assertThat(order).hasSize(3);
			assertThat(order.get(1)).as("a's second waiter keeps its place: %s", order).startsWith(a.getInstanceId() + ":");
			held.close();
			for (Future<?> waiter : List.of(b1, a2, b2)) {
				waiter.get(20, TimeUnit.SECONDS);
			}
		}
	}

	@Test
	void aHeartbeatNeverWritesAWaitersEntryButReportsItMissing() throws Exception {
		// Only a waiting thread writes its own entry: a heartbeat that raced its departure could
		// otherwise bring back the entry of a waiter that has given up, and the lock would go to nobody.
		try (dev.lockstep.internal.redis.RedisScripts redis = new dev.lockstep.internal.redis.RedisScripts(this.redis.factory())) {
			LockScripts scripts = new LockScripts(redis, this.redis.prefix() + "wake:");
			LockKeys keys = LockKeys.of(this.redis.prefix(), "k");
			this.redis.template().opsForValue().set(keys.lock(), "other:1:42", Duration.ofSeconds(30));
			List<Object> reply = scripts.heartbeat(keys, 2500, 10_000, List.of("gone:7:2500")).get(10, TimeUnit.SECONDS);
			assertThat(queue("k")).isEmpty();
			assertThat(reply).hasSize(3);
			assertThat(new String((byte[]) reply.get(2), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("gone:7:2500");
		}
	}

	@Test
	void aWaiterWhoseEntryWasDroppedQueuesAgainAndGetsTheLock() throws Exception {
		Consumer<RedisLockService> fast = (service) -> service.setHeartbeatInterval(Duration.ofMillis(100));
		RedisLockService holder = service(fast);
		RedisLockService waiter = service(fast);
		LockHandle held = holder.acquire("k", Duration.ZERO);
		Future<Boolean> waiting = this.threads.submit(() -> {
			try (LockHandle handle = waiter.acquire("k", Duration.ofSeconds(30))) {
				return handle.isHeld();
			}
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> queue("k").size() == 1);
		String entry = queue("k").get(0);
		// as if its instance had been taken for dead (a long pause) and pruned
		this.redis.template().opsForList().remove(this.redis.prefix() + "{k}:queue", 0, entry);
		// queued again under an owner id of its own: nothing meant for the dropped queueing can reach it
		await().atMost(Duration.ofSeconds(10)).until(() -> queue("k").size() == 1);
		assertThat(queue("k").get(0)).isNotEqualTo(entry)
			.startsWith(entry.substring(0, entry.indexOf(':') + 1));
		held.close();
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aLockReportedLostIsStillReleasedWhenItsHandleCloses() {
		RedisLockService service = service((settings) -> {
			settings.setLeaseTime(Duration.ofSeconds(1));
			settings.setHeartbeatInterval(Duration.ofMillis(100));
		});
		LockHandle handle = service.acquire("revived", Duration.ZERO);
		String value = this.redis.template().opsForValue().get(this.redis.prefix() + "{revived}");
		this.redis.template().delete(this.redis.prefix() + "{revived}");
		await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
		// a renewal that was already on its way brings the lease back
		this.redis.template().opsForValue().set(this.redis.prefix() + "{revived}", value, Duration.ofSeconds(30));
		handle.close();
		assertThat(this.redis.template().hasKey(this.redis.prefix() + "{revived}")).isFalse();
	}

}
