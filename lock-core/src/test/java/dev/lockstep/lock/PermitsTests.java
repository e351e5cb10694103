package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockSnapshot;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Permits ({@code acquirePermit}) by example, on a real Redis: each service stands for one
 * application instance. The heartbeat is long (1s) wherever a test shows a wake-up, so that only
 * the wake-up channel can explain a hand-over within it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PermitsTests {

	private static final Duration LONG_HEARTBEAT = Duration.ofSeconds(1);

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

	private RedisLockService service() {
		return service((settings) -> settings.setHeartbeatInterval(LONG_HEARTBEAT));
	}

	private String holdersKey(String key) {
		return this.redis.prefix() + "permits:{" + key + "}";
	}

	private long holders(String key) {
		Long count = this.redis.template().opsForZSet().zCard(holdersKey(key));
		return (count != null) ? count : 0;
	}

	@Test
	void atMostThePermitsHoldAtOnceTokensRiseAndAReleaseWakesTheNextWaiterAtOnce() throws Exception {
		RedisLockService first = service();
		RedisLockService second = service();
		List<LockHandle> held = new ArrayList<>();
		held.add(first.acquirePermit("range", 3, Duration.ZERO));
		held.add(second.acquirePermit("range", 3, Duration.ZERO));
		held.add(first.acquirePermit("range", 3, Duration.ZERO));
		assertThat(held).allSatisfy((handle) -> assertThat(handle.isHeld()).isTrue());
		assertThat(held.get(1).fencingToken()).isGreaterThan(held.get(0).fencingToken());
		assertThat(held.get(2).fencingToken()).isGreaterThan(held.get(1).fencingToken());
		assertThat(holders("range")).isEqualTo(3);

		assertThatThrownBy(() -> second.acquirePermit("range", 3, Duration.ofMillis(200)))
			.isInstanceOf(LockNotAcquiredException.class)
			.hasMessage("All 3 permits of 'range' are still taken after waiting 200ms");
		assertThat(second.tryAcquirePermit("range", 3, Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
		// another key has permits of its own
		try (LockHandle other = second.acquirePermit("other-range", 3, Duration.ZERO)) {
			assertThat(other.isHeld()).isTrue();
		}

		CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = second.acquirePermit("range", 3, Duration.ofSeconds(20))) {
				return System.nanoTime();
			}
		}, this.threads);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.redis.template().opsForList().size(holdersKey("range") + ":queue") == 1);
		long released = System.nanoTime();
		held.get(1).close();
		long takenAfter = TimeUnit.NANOSECONDS.toMillis(waiting.get(10, TimeUnit.SECONDS) - released);
		assertThat(takenAfter).as("taken %d ms after the release", takenAfter).isLessThan(LONG_HEARTBEAT.toMillis() / 2);
		assertThat(held.get(1).isHeld()).isFalse();
		held.get(0).close();
		held.get(2).close();
		held.get(2).close();
		// releases are sent without waiting for their reply
		await().atMost(Duration.ofSeconds(5)).until(() -> holders("range") == 0);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.redis.keys().isEmpty());
	}

	@Test
	void waitersAreServedInTheOrderTheyQueuedOneForEachRelease() throws Exception {
		RedisLockService holder = service();
		List<RedisLockService> instances = List.of(service(), service(), service());
		LockHandle a = holder.acquirePermit("fifo", 2, Duration.ZERO);
		LockHandle b = holder.acquirePermit("fifo", 2, Duration.ZERO);
		List<Integer> served = new CopyOnWriteArrayList<>();
		List<CompletableFuture<LockHandle>> waiters = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			int index = i;
			waiters.add(CompletableFuture.supplyAsync(() -> {
				LockHandle handle = instances.get(index % 3).acquirePermit("fifo", 2, Duration.ofSeconds(30));
				served.add(index);
				return handle;
			}, this.threads));
			long queued = i + 1;
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.redis.template().opsForList().size(holdersKey("fifo") + ":queue") == queued);
		}
		a.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> served.size() == 1);
		Thread.sleep(300);
		// one release, one waiter
		assertThat(served).containsExactly(0);
		b.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> served.size() == 2);
		waiters.get(0).get().close();
		await().atMost(Duration.ofSeconds(5)).until(() -> served.size() == 3);
		waiters.get(1).get().close();
		await().atMost(Duration.ofSeconds(5)).until(() -> served.size() == 4);
		assertThat(served).containsExactly(0, 1, 2, 3);
		for (int i = 1; i < 4; i++) {
			// the grant order, as Redis made it
			assertThat(waiters.get(i).get().fencingToken()).isGreaterThan(waiters.get(i - 1).get().fencingToken());
		}
		waiters.get(2).get().close();
		waiters.get(3).get().close();
		await().atMost(Duration.ofSeconds(5)).until(() -> holders("fifo") == 0);
	}

	/**
	 * A rolling deploy from 3 permits to 2: each caller admits itself only below its own number,
	 * so once the callers of 3 hold none, no more than 2 ever hold.
	 */
	@Test
	void callersThatDisagreeOnThePermitsNeverLetInMoreThanTheirOwnNumber() {
		RedisLockService old = service();
		RedisLockService updated = service();
		LockHandle first = old.acquirePermit("deploy", 3, Duration.ZERO);
		LockHandle second = old.acquirePermit("deploy", 3, Duration.ZERO);
		assertThat(updated.tryAcquirePermit("deploy", 2, Duration.ZERO, Duration.ofSeconds(10))).isEmpty();
		LockHandle third = old.acquirePermit("deploy", 3, Duration.ZERO);
		first.close();
		second.close();
		// one of the old holders left: the update admits itself beside it, up to its own two
		LockHandle updatedOne = updated.acquirePermit("deploy", 2, Duration.ofSeconds(5));
		assertThat(updated.tryAcquirePermit("deploy", 2, Duration.ZERO, Duration.ofSeconds(10))).isEmpty();
		third.close();
		LockHandle updatedTwo = updated.acquirePermit("deploy", 2, Duration.ofSeconds(5));
		assertThat(updated.tryAcquirePermit("deploy", 2, Duration.ZERO, Duration.ofSeconds(10))).isEmpty();
		assertThat(holders("deploy")).isEqualTo(2);
		updatedOne.close();
		updatedTwo.close();
	}

	@Test
	void onePermitIsTheLockAndPermitsBelowOneAreRefusedNamingTheKey() {
		RedisLockService service = service();
		try (LockHandle single = service.acquirePermit("report", 1, Duration.ZERO)) {
			assertThat(this.redis.template().hasKey(this.redis.prefix() + "{report}")).isTrue();
			assertThat(holders("report")).isZero();
			RedisLockService other = service();
			assertThatThrownBy(() -> other.acquire("report", Duration.ZERO)).isInstanceOf(LockNotAcquiredException.class);
		}
		assertThatThrownBy(() -> service.acquirePermit("report", 0, Duration.ZERO))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessage("Permits of 'report' must be at least 1: 0");
		assertThatThrownBy(() -> service.tryAcquirePermit("report", -2, Duration.ZERO, Duration.ofSeconds(1)))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("'report'");
		assertThatThrownBy(() -> service.acquirePermit("", 3, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
	}

	/** A permit held by a live holder is renewed however long the work runs, and shown as held. */
	@Test
	void aLiveHolderKeepsItsPermitPastSeveralLeasesAndShowsIt() throws Exception {
		RedisLockService holder = service((settings) -> {
			settings.setLeaseTime(Duration.ofSeconds(1));
			settings.setHeartbeatInterval(Duration.ofMillis(100));
		});
		RedisLockService other = service();
		try (LockHandle handle = holder.acquirePermit("long-work", 2, Duration.ZERO);
				LockHandle second = other.acquirePermit("long-work", 2, Duration.ZERO)) {
			Thread.sleep(3_500);
			assertThat(handle.isHeld()).isTrue();
			assertThat(holders("long-work")).isEqualTo(2);
			assertThat(other.tryAcquirePermit("long-work", 2, Duration.ZERO, Duration.ofSeconds(1))).isEmpty();
			List<LockSnapshot.Held> held = holder.heldLocks();
			assertThat(held).singleElement().satisfies((shown) -> {
				assertThat(shown.key()).isEqualTo("long-work");
				assertThat(shown.permits()).isEqualTo(2);
				assertThat(shown.fencingToken()).isEqualTo(handle.fencingToken());
				assertThat(shown.renewals()).isGreaterThanOrEqualTo(6);
			});
			assertThat(holder.permitState("long-work")).isEqualTo(new LockSnapshot.PermitState("long-work", 2, 0));
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> holder.permitState("long-work").equals(new LockSnapshot.PermitState("long-work", 0, 0)));
	}

	/** A permit with a fixed lease that is not closed frees itself at its lease's end, and a waiter gets it then. */
	@Test
	void aPermitWhoseHolderStopsRenewingFreesItselfWithinItsLease() throws Exception {
		RedisLockService holder = service();
		RedisLockService waiter = service((settings) -> settings.setHeartbeatInterval(Duration.ofMillis(100)));
		LockHandle stays = holder.acquirePermit("lease", 2, Duration.ZERO);
		LockHandle abandoned = holder.tryAcquirePermit("lease", 2, Duration.ZERO, Duration.ofMillis(800)).orElseThrow();
		long taken = System.nanoTime();
		try (LockHandle handle = waiter.acquirePermit("lease", 2, Duration.ofSeconds(10))) {
			long afterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - taken);
			assertThat(afterMillis).isBetween(700L, 800L + 600L);
			assertThat(handle.fencingToken()).isGreaterThan(abandoned.fencingToken());
			assertThat(abandoned.isHeld()).isFalse();
			assertThat(stays.isHeld()).isTrue();
		}
		abandoned.close();
		stays.close();
	}

	@Test
	void aPermitFoundGoneIsReportedLost() {
		List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
		RedisLockService service = service((settings) -> {
			settings.setLeaseTime(Duration.ofSeconds(1));
			settings.setHeartbeatInterval(Duration.ofMillis(100));
			settings.setListener(new LockListener() {
				@Override
				public void lost(LockLostEvent event) {
					lost.add(event);
				}
			});
		});
		LockHandle handle = service.acquirePermit("fragile", 4, Duration.ZERO);
		this.redis.template().delete(holdersKey("fragile"));
		await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
		assertThat(lost).singleElement().satisfies((event) -> {
			assertThat(event.key()).isEqualTo("fragile");
			assertThat(event.fencingToken()).isEqualTo(handle.fencingToken());
		});
		assertThat(handle.isHeld()).isFalse();
		handle.close();
	}

	@Test
	void redisDownFailsClosed() {
		try (RedisServer server = RedisServer.start()) {
			var factory = RedisConnections.standalone(server.host(), server.port());
			try {
				RedisLockService service = RedisConnections.lockService(factory, "permits-outage:",
						(settings) -> settings.setCommandTimeout(Duration.ofMillis(500)));
				this.services.add(service);
				service.acquirePermit("down", 2, Duration.ZERO).close();
				server.kill();
				assertThatThrownBy(() -> service.acquirePermit("down", 2, Duration.ofMillis(300)))
					.isInstanceOf(LockUnavailableException.class)
					.hasMessageContaining("'down'");
				service.stop();
			}
			finally {
				factory.destroy();
			}
		}
	}

}
