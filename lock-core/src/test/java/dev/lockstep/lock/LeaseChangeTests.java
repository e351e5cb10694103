package dev.lockstep.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.LockHandle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** {@link LockHandle#changeLease} and {@link LockHandle#closeKeeping}, on a real Redis. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseChangeTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private RedisLockService one;

	private RedisLockService other;

	@BeforeEach
	void start() {
		this.one = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (service) -> {
		});
		this.other = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (service) -> {
		});
	}

	@AfterEach
	void stop() {
		this.one.stop();
		this.other.stop();
	}

	@Test
	void changeLeaseSetsTheLeaseOnRedisLongerOrShorter() {
		LockHandle handle = this.one.tryAcquire("report", Duration.ZERO, Duration.ofSeconds(2)).orElseThrow();
		assertThat(handle.changeLease(Duration.ofSeconds(60))).isTrue();
		assertThat(pttl("report")).isBetween(50_000L, 60_000L);
		assertThat(handle.changeLease(Duration.ofMillis(300))).isTrue();
		assertThat(pttl("report")).isBetween(1L, 300L);
		assertThat(handle.isHeld()).isTrue();
		await(() -> !handle.isHeld());
		assertThat(this.other.tryAcquire("report", Duration.ofSeconds(2), Duration.ofSeconds(5))).isPresent();
		handle.close();
	}

	@Test
	void changeLeaseOfALockTakenOverChangesNothing() {
		LockHandle handle = this.one.tryAcquire("report", Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
		await(() -> !handle.isHeld());
		LockHandle taker = this.other.tryAcquire("report", Duration.ofSeconds(2), Duration.ofSeconds(30)).orElseThrow();
		assertThat(handle.changeLease(Duration.ofSeconds(1))).isFalse();
		handle.closeKeeping(Duration.ofSeconds(1));
		assertThat(taker.isHeld()).isTrue();
		assertThat(pttl("report")).isGreaterThan(20_000L);
		taker.close();
	}

	@Test
	void closeKeepingLeavesTheLockTakenForThatLongThenFree() {
		LockHandle handle = this.one.tryAcquire("report", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		long closed = System.nanoTime();
		handle.closeKeeping(Duration.ofMillis(800));
		assertThat(handle.isHeld()).isFalse();
		assertThat(this.one.tryAcquire("report", Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
		assertThat(this.other.tryAcquire("report", Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
		Optional<LockHandle> next = this.other.tryAcquire("report", Duration.ofSeconds(5), Duration.ofSeconds(5));
		assertThat(next).isPresent();
		assertThat(Duration.ofNanos(System.nanoTime() - closed)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
		next.get().close();
	}

	@Test
	void aLockClosedKeepingItIsNotTakenByAWaiterOfTheSameInstance() throws Exception {
		LockHandle handle = this.one.tryAcquire("report", Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
		handle.closeKeeping(Duration.ofSeconds(20));
		// a waiter's heartbeat (every 500 ms) finds the lock held by an owner of this instance that no
		// longer waits nor holds it: it must not take it for a grant to nobody and pass it on
		Optional<LockHandle> waiter = this.one.tryAcquire("report", Duration.ofSeconds(3), Duration.ofSeconds(5));
		waiter.ifPresent(LockHandle::close);
		assertThat(waiter).as("taken by a waiter of the same instance while kept").isEmpty();
		assertThat(pttl("report")).isGreaterThan(10_000L);
	}

	@Test
	void aWatchdogLockCannotChangeItsLease() {
		try (LockHandle handle = this.one.acquire("report", Duration.ZERO)) {
			assertThatIllegalStateException().isThrownBy(() -> handle.changeLease(Duration.ofSeconds(1)))
				.withMessageContaining("'report'");
		}
	}

	private long pttl(String key) {
		return this.redis.template().getExpire(this.redis.prefix() + "{" + key + "}", TimeUnit.MILLISECONDS);
	}

	private static void await(java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as("condition within 10s").isNegative();
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	@Test
	void aKeepLongerThanTheMonotonicClockCountsKeepsTheLockForACentury() {
		LockHandle handle = this.one.acquire("kept", Duration.ZERO);
		handle.closeKeeping(Duration.ofDays(300 * 365));
		assertThat(pttl("kept")).isGreaterThan(Duration.ofDays(36_000).toMillis());
		assertThat(this.other.tryAcquire("kept", Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
	}

	@Test
	void aWaitLongerThanTheMonotonicClockCountsWaitsAndLeavesNoEntryBehind() throws Exception {
		LockHandle held = this.one.acquire("long-wait", Duration.ZERO);
		java.util.concurrent.CompletableFuture<LockHandle> waiting = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> this.other.acquire("long-wait", Duration.ofDays(300 * 365)));
		String queue = this.redis.prefix() + "{long-wait}:queue";
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
			.until(() -> this.redis.template().opsForList().size(queue) == 1);
		held.close();
		LockHandle next = waiting.get(10, TimeUnit.SECONDS);
		assertThat(next.isHeld()).isTrue();
		next.close();
		assertThat(this.redis.template().opsForList().size(queue)).isZero();
	}

}
