package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * Permits between real processes: three JVMs of sixteen threads each on one 4-permit key, watched
 * from outside the lock service through a counter at the Redis server; and a holder killed with
 * SIGKILL while a waiter of another process waits.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PermitProcessTests {

	private static final Duration RUN_LIMIT = Duration.ofSeconds(150);

	private final List<JavaProcess> processes = new ArrayList<>();

	private final ExecutorService threads = Executors.newSingleThreadExecutor();

	private final List<RedisLockService> services = new ArrayList<>();

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	@AfterEach
	void cleanUp() {
		this.processes.forEach(JavaProcess::kill);
		this.threads.shutdownNow();
		this.services.forEach(RedisLockService::stop);
	}

	/**
	 * Never more than 4 inside, and 4 reached; the same processes then run the same sections under
	 * 8 permits, and the same probe sees more than 4 inside: it would have noticed. Every caller is
	 * served within a bound (FIFO: nobody starves), every token is handed out once, and all permits
	 * are free at the end.
	 */
	@Test
	void neverMoreThanFourOfFortyEightThreadsInThreeProcessesHoldAPermitAtOnce() {
		int processes = 3;
		int threads = 16;
		int iterations = 10;
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		long start = System.nanoTime();
		for (int i = 0; i < processes; i++) {
			this.processes.add(JavaProcess.start("permits-" + i, PermitWorker.class, LockingWorker.JVM_OPTIONS, "contend",
					endpoint.host(), Integer.toString(endpoint.port()), this.redis.prefix(), Integer.toString(processes),
					Integer.toString(threads), Integer.toString(iterations), "4"));
		}
		List<Map<String, Long>> summaries = new ArrayList<>();
		for (JavaProcess process : this.processes) {
			int exitCode = process.waitFor(RUN_LIMIT);
			assertThat(exitCode).as("exit code of %s. Output:%n%s", process, process.output()).isZero();
			summaries.add(LockingWorker.summary(process));
		}
		System.out.printf("%d processes x %d threads x %d sections on 4 permits took %d ms: %s%n", processes, threads,
				iterations, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), summaries);
		assertThat(summaries).allSatisfy((summary) -> {
			assertThat(summary.get("sections")).isEqualTo(threads * iterations);
			assertThat(summary.get("over")).as("sections that saw more than 4 inside").isZero();
			assertThat(summary.get("duplicates")).as("tokens handed out twice").isZero();
			assertThat(summary.get("lost")).as("permits lost").isZero();
			assertThat(summary.get("errors")).as("errors").isZero();
			assertThat(summary.get("longestWait")).as("longest wait for a permit, ms").isLessThan(30_000);
		});
		assertThat(summaries.stream().mapToLong((summary) -> summary.get("most")).max().orElse(0)).isEqualTo(4);
		assertThat(summaries.stream().mapToLong((summary) -> summary.get("controlOver")).sum())
			.as("the control's sections that saw more than 4 inside").isPositive();
		String lockPrefix = LockingWorker.lockPrefix(this.redis.prefix());
		assertThat(this.redis.template().hasKey(lockPrefix + "permits:{range}")).as("permits held at the end").isFalse();
		assertThat(this.redis.template().hasKey(lockPrefix + "permits:{range}:queue")).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> RedisConnections.keys(this.redis.template(), lockPrefix).isEmpty());
	}

	/**
	 * Alive, a holder keeps its permit past several leases; killed (SIGKILL: nothing released), its
	 * permit is free at its lease's end and a waiter of another process has it within one more
	 * second.
	 */
	@Test
	void aKilledHoldersPermitComesBackWithinItsLeaseAndALiveOneKeepsIt() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		Duration heartbeat = Duration.ofMillis(200);
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		JavaProcess holder = JavaProcess.start("permit-holder", PermitWorker.class, LockingWorker.JVM_OPTIONS, "hold",
				endpoint.host(), Integer.toString(endpoint.port()), this.redis.prefix(), "exports", "2",
				Long.toString(lease.toMillis()), Long.toString(heartbeat.toMillis()));
		this.processes.add(holder);
		long deadHoldersToken = Long.parseLong(holder.awaitLine("HELD ", Duration.ofSeconds(60)).split(" ")[1]);
		RedisLockService here = RedisConnections.lockService(this.redis.factory(),
				LockingWorker.lockPrefix(this.redis.prefix()), (service) -> service.setHeartbeatInterval(heartbeat));
		this.services.add(here);
		LockHandle other = here.acquirePermit("exports", 2, Duration.ZERO);
		CompletableFuture<Long[]> taking = CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = here.acquirePermit("exports", 2, Duration.ofSeconds(60))) {
				return new Long[] { System.nanoTime(), handle.fencingToken() };
			}
		}, this.threads);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.template().opsForList().size(holdersKey() + ":queue") == 1);

		// Alive, the holder keeps its permit for more than three leases
		Thread.sleep(lease.multipliedBy(3).plusMillis(500).toMillis());
		assertThat(holder.isAlive()).isTrue();
		assertThat(taking).isNotDone();
		assertThat(this.redis.template().opsForZSet().size(holdersKey())).isEqualTo(2);

		// Killed just after a renewal: the worst case, with (nearly) its whole lease left
		await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
			.until(() -> holdersLeaseLeftMillis(deadHoldersToken) > lease.toMillis() - 150);
		long leaseLeftAtKill = holdersLeaseLeftMillis(deadHoldersToken);
		long killedAt = System.nanoTime();
		holder.kill();
		Long[] taken = taking.get(30, TimeUnit.SECONDS);
		Duration handedOverAfter = Duration.ofNanos(taken[0] - killedAt);
		System.out.printf("Permit of a holder killed with %d ms of its %s lease left taken %d ms after the kill%n",
				leaseLeftAtKill, lease, handedOverAfter.toMillis());
		assertThat(handedOverAfter).isGreaterThanOrEqualTo(Duration.ofMillis(leaseLeftAtKill - 100))
			.isLessThanOrEqualTo(lease.plusSeconds(1));
		assertThat(taken[1]).isGreaterThan(deadHoldersToken);
		assertThat(other.isHeld()).isTrue();
		other.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.redis.template().hasKey(holdersKey()));
	}

	private String holdersKey() {
		return LockingWorker.lockPrefix(this.redis.prefix()) + "permits:{exports}";
	}

	/** The lease left of the holder with {@code token}, by Redis's clock; -1 when it holds none. */
	private long holdersLeaseLeftMillis(long token) {
		Long now = this.redis.template().execute((org.springframework.data.redis.core.RedisCallback<Long>) (connection) ->
				connection.serverCommands().time(TimeUnit.MILLISECONDS));
		var holders = this.redis.template().opsForZSet().rangeWithScores(holdersKey(), 0, -1);
		if (holders == null || now == null) {
			return -1;
		}
		return holders.stream().filter((holder) -> holder.getValue().endsWith(":" + token))
			.mapToLong((holder) -> holder.getScore().longValue() - now).findFirst().orElse(-1);
	}

}
