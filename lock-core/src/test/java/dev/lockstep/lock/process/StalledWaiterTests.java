package dev.lockstep.lock.process;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * A waiter that stalls (SIGSTOP: a long GC pause, CPU throttling) while the lock is handed to it.
 * The hand-over's short lease runs out, the next waiter takes the lock, and the stalled waiter,
 * resumed, must not believe it holds the lock: it queues again and gets it after the other holder.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StalledWaiterTests {

	private static final Duration HEARTBEAT = Duration.ofMillis(200);

	/** Five heartbeats: the lease of a hand-over and how long a silent waiter counts as alive. */
	private static final Duration LIVENESS = HEARTBEAT.multipliedBy(5);

	private static final String KEY = "ledger";

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private JavaProcess stalled;

	private RedisLockService holder;

	private RedisLockService next;

	@BeforeEach
	void connect() {
		this.holder = RedisConnections.lockService(this.redis.factory(), LockingWorker.lockPrefix(this.redis.prefix()),
				(service) -> service.setHeartbeatInterval(HEARTBEAT));
		this.next = RedisConnections.lockService(this.redis.factory(), LockingWorker.lockPrefix(this.redis.prefix()),
				(service) -> service.setHeartbeatInterval(HEARTBEAT));
	}

	@AfterEach
	void cleanUp() throws Exception {
		if (this.stalled != null) {
			signal("CONT", this.stalled);
			this.stalled.kill();
		}
		this.threads.shutdownNow();
		this.holder.stop();
		this.next.stop();
	}

	@Test
	void aWaiterStalledThroughItsHandOverDoesNotBelieveItHoldsTheLockThatWentToTheNextWaiter() throws Exception {
		LockHandle held = this.holder.acquire(KEY, Duration.ZERO);
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		this.stalled = JavaProcess.start("stalled-waiter", LockingWorker.class, LockingWorker.JVM_OPTIONS, "wait",
				endpoint.host(), Integer.toString(endpoint.port()), this.redis.prefix(), KEY, Long.toString(HEARTBEAT.toMillis()));
		this.stalled.awaitLine("READY", Duration.ofSeconds(60));
		await().atMost(Duration.ofSeconds(20)).until(() -> queueLength() == 1);
		CompletableFuture<LockHandle> nextTakes = CompletableFuture.supplyAsync(() -> this.next.acquire(KEY,
				Duration.ofSeconds(60)), this.threads);
		await().atMost(Duration.ofSeconds(10)).until(() -> queueLength() == 2);

		signal("STOP", this.stalled);
		held.close();
		// the hand-over goes to the stalled waiter, whose grant runs out; the next waiter takes the lock
		LockHandle nextHolds = nextTakes.get(LIVENESS.multipliedBy(4).toMillis() + 5_000, TimeUnit.MILLISECONDS);
		assertThat(nextHolds.isHeld()).isTrue();
		String holderInRedis = this.redis.template().opsForValue().get(lockKey());
		assertThat(holderInRedis).endsWith(":" + nextHolds.fencingToken());

		signal("CONT", this.stalled);
		// Resumed, the stalled waiter reads its wake-up. It must queue again, not run beside the holder.
		Thread.sleep(LIVENESS.multipliedBy(2).toMillis());
		assertThat(this.stalled.lines()).as("stalled waiter's output while the next waiter holds the lock")
			.noneMatch((line) -> line.startsWith("ACQUIRED"));
		assertThat(this.redis.template().opsForValue().get(lockKey())).isEqualTo(holderInRedis);

		nextHolds.close();
		String acquired = this.stalled.awaitLine("ACQUIRED ", Duration.ofSeconds(30));
		assertThat(Long.parseLong(acquired.split(" ")[1])).isGreaterThan(nextHolds.fencingToken());
		assertThat(acquired).endsWith(" true");
		this.stalled.awaitLine("RELEASED", Duration.ofSeconds(30));
		await().atMost(Duration.ofSeconds(10)).until(() -> !Boolean.TRUE.equals(this.redis.template().hasKey(lockKey())));
	}

	/**
	 * A waiter with an explicit lease (tryAcquire(key, wait, 40s), or @SerialGroup(leaseTime)) that
	 * dies at the head of the queue: the lock handed to it frees within the liveness window, not after
	 * the 40s lease it asked for.
	 */
	@Test
	void aKilledWaiterWithAnExplicitLeaseHoldsAHandedOverLockOnlyForTheLivenessWindow() throws Exception {
		LockHandle held = this.holder.acquire(KEY, Duration.ZERO);
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		this.stalled = JavaProcess.start("dead-waiter", LockingWorker.class, LockingWorker.JVM_OPTIONS,
				"wait-with-lease", endpoint.host(), Integer.toString(endpoint.port()), this.redis.prefix(), KEY,
				Long.toString(HEARTBEAT.toMillis()), "40000");
		this.stalled.awaitLine("READY", Duration.ofSeconds(60));
		await().atMost(Duration.ofSeconds(20)).until(() -> queueLength() == 1);
		CompletableFuture<LockHandle> nextTakes = CompletableFuture.supplyAsync(() -> this.next.acquire(KEY,
				Duration.ofSeconds(60)), this.threads);
		await().atMost(Duration.ofSeconds(10)).until(() -> queueLength() == 2);

		this.stalled.kill();
		long releasedAt = System.nanoTime();
		held.close();
		try (LockHandle nextHolds = nextTakes.get(30, TimeUnit.SECONDS)) {
			Duration after = Duration.ofNanos(System.nanoTime() - releasedAt);
			assertThat(nextHolds.isHeld()).isTrue();
			// the liveness window plus a heartbeat for the next waiter to find the lock free, and slack
			assertThat(after).isLessThan(LIVENESS.plus(HEARTBEAT).plusSeconds(3));
		}
	}

	/**
	 * A holder stopped past its lease (a long GC pause), then resumed: another instance has taken
	 * over with a higher fencing token; the resumed holder's handle says not held, it gets a
	 * lost-lock event, and its late release changes nothing.
	 */
	@Test
	void aHolderStoppedPastItsLeaseLosesTheLockToAHigherTokenAndItsLateReleaseChangesNothing() throws Exception {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		Duration lease = Duration.ofSeconds(2);
		this.stalled = JavaProcess.start("stalled-holder", LockingWorker.class, LockingWorker.JVM_OPTIONS,
				"hold-until-lost", endpoint.host(), Integer.toString(endpoint.port()), this.redis.prefix(), KEY,
				Long.toString(lease.toMillis()), Long.toString(HEARTBEAT.toMillis()));
		long stalledToken = Long.parseLong(this.stalled.awaitLine("HELD ", Duration.ofSeconds(60)).split(" ")[1]);

		signal("STOP", this.stalled);
		long stoppedAt = System.nanoTime();
		try (LockHandle taken = this.next.acquire(KEY, Duration.ofSeconds(30))) {
			assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).as("taken over once the lease ran out")
				.isGreaterThanOrEqualTo(lease.dividedBy(2));
			assertThat(taken.fencingToken()).isGreaterThan(stalledToken);
			String holderInRedis = this.redis.template().opsForValue().get(lockKey());

			signal("CONT", this.stalled);
			this.stalled.awaitLine("NOT-HELD", Duration.ofSeconds(10));
			this.stalled.awaitLine("LOST " + stalledToken, Duration.ofSeconds(10));
			this.stalled.awaitLine("RELEASED", Duration.ofSeconds(10));
			assertThat(this.redis.template().opsForValue().get(lockKey())).as("the lock after the late release").isEqualTo(holderInRedis);
			assertThat(taken.isHeld()).isTrue();
		}
	}

	private long queueLength() {
		Long size = this.redis.template().opsForList().size(lockKey() + ":queue");
		return (size != null) ? size : 0;
	}

	private String lockKey() {
		return LockingWorker.lockPrefix(this.redis.prefix()) + "{" + KEY + "}";
	}

	private static void signal(String signal, JavaProcess process) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
	}

}
