package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.LockHandle;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder that dies without a word (SIGKILL: no shutdown hook, no release) loses its lock within
 * its lease, and a process waiting for it takes it within one more second: one heartbeat (500ms by
 * default) for the waiter to find the lock free, plus room for a slow machine.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KilledHolderTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration HEARTBEAT = Duration.ofMillis(500);

	private static final String KEY = "nightly-report";

	private final ExecutorService threads = Executors.newSingleThreadExecutor();

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private JavaProcess holder;

	private RedisLockService waiter;

	@AfterEach
	void cleanUp() {
		if (this.holder != null) {
			this.holder.kill();
		}
		this.threads.shutdownNow();
		if (this.waiter != null) {
			this.waiter.stop();
		}
	}

	@Test
	void aWaitingProcessTakesTheLockOfAKilledHolderWithinTheLeasePlusOneSecond() throws Exception {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		this.holder = JavaProcess.start("holder", LockingWorker.class, LockingWorker.JVM_OPTIONS, "hold", endpoint.host(),
				Integer.toString(endpoint.port()), this.redis.prefix(), KEY, Long.toString(LEASE.toMillis()),
				Long.toString(HEARTBEAT.toMillis()));
		long deadHoldersToken = Long.parseLong(this.holder.awaitLine("HELD ", Duration.ofSeconds(60)).split(" ")[1]);
		this.waiter = RedisConnections.lockService(this.redis.factory(), LockingWorker.lockPrefix(this.redis.prefix()),
				(service) -> service.setHeartbeatInterval(HEARTBEAT));
		CompletableFuture<Taken> taking = CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = this.waiter.acquire(KEY, Duration.ofSeconds(60))) {
				return new Taken(System.nanoTime(), handle.fencingToken());
			}
		}, this.threads);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.template().opsForList().size(queueKey()) == 1);

		// Alive, the holder keeps its lock past its lease: what frees it below is the kill alone.
		Thread.sleep(LEASE.plusSeconds(1).toMillis());
		assertThat(this.holder.isAlive()).isTrue();
		assertThat(taking).isNotDone();
		assertThat(this.redis.template().opsForValue().get(lockKey())).endsWith(":" + deadHoldersToken);

		// Killed just after a renewal, the lock has (nearly) its whole lease left: the worst case.
		await().atMost(Duration.ofSeconds(10))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(5))
			.until(() -> leaseLeftMillis() > LEASE.toMillis() - 200);
		long leaseLeftAtKill = leaseLeftMillis();
		long killedAt = System.nanoTime();
		this.holder.kill();
		Taken taken = taking.get(30, TimeUnit.SECONDS);

		Duration handedOverAfter = Duration.ofNanos(taken.atNanos() - killedAt);
		System.out.printf("Lock of a holder killed with %d ms of its %s lease left taken %d ms after the kill%n",
				leaseLeftAtKill, LEASE, handedOverAfter.toMillis());
		assertThat(handedOverAfter).isLessThanOrEqualTo(LEASE.plusSeconds(1));
		assertThat(taken.fencingToken()).isGreaterThan(deadHoldersToken);
		assertThat(this.holder.isAlive()).isFalse();
		assertThat(RedisConnections.keys(this.redis.template(), LockingWorker.lockPrefix(this.redis.prefix()))).isEmpty();
	}

	private long leaseLeftMillis() {
		Long left = this.redis.template().getExpire(lockKey(), TimeUnit.MILLISECONDS);
		return (left != null) ? left : -2;
	}

	private String lockKey() {
		return LockingWorker.lockPrefix(this.redis.prefix()) + "{" + KEY + "}";
	}

	private String queueKey() {
		return lockKey() + ":queue";
	}

	/**
	 * The waiter's acquisition.
	 * @param atNanos when it returned, by {@link System#nanoTime()}
	 * @param fencingToken its token
	 */
	private record Taken(long atNanos, long fencingToken) {
	}

}
