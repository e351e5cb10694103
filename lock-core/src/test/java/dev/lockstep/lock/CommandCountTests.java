package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the lock costs Redis, counted by the server itself ({@code INFO commandstats}, which
 * includes the commands scripts run). Each test has a server of its own so nothing else counts.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommandCountTests {

	private RedisServer server;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockService> services = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@BeforeEach
	void startServer() {
		this.server = RedisServer.start();
	}

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.services.forEach(RedisLockService::stop);
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.server.close();
	}

	private RedisLockService instance(Duration leaseTime, Duration heartbeat) {
		LettuceConnectionFactory factory = RedisConnections.standalone(this.server.host(), this.server.port());
		this.factories.add(factory);
		RedisLockService service = RedisConnections.lockService(factory, "count:", (settings) -> {
			settings.setLeaseTime(leaseTime);
			settings.setHeartbeatInterval(heartbeat);
		});
		this.services.add(service);
		return service;
	}

	@Test
	void aHandOffUnderContentionCostsAtMostNineCommandsAndWakesOneInstance() throws Exception {
		// 16 instances, one thread each, on one key: every release hands over to a queued waiter.
		// The heartbeat is set far out so that the count holds only the hand-off path itself:
		// acquire (EVALSHA, GET, LPOS, RPUSH), release and hand-over (EVALSHA, GET, LPOP, SET,
		// PUBLISH); a waiter woken this soon after queueing holds its grant without confirming it.
		List<RedisLockService> instances = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			instances.add(instance(Duration.ofSeconds(200), Duration.ofSeconds(60)));
		}
		this.server.call("CONFIG", "RESETSTAT");
		int rounds = 50;
		AtomicInteger acquisitions = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> workers = new ArrayList<>();
		for (RedisLockService instance : instances) {
			workers.add(this.threads.submit(() -> {
				start.await();
				for (int i = 0; i < rounds; i++) {
					try (LockHandle handle = instance.acquire("hot", Duration.ofSeconds(60))) {
						acquisitions.incrementAndGet();
					}
				}
				return null;
			}));
		}
		start.countDown();
		for (Future<?> worker : workers) {
			worker.get(90, TimeUnit.SECONDS);
		}
		Map<String, Long> calls = commandCalls();
		long total = calls.values().stream().mapToLong(Long::longValue).sum() - calls.getOrDefault("info", 0L);
		double perAcquisition = (double) total / acquisitions.get();
		assertThat(acquisitions).hasValue(16 * rounds);
		assertThat(perAcquisition).as("Redis commands per acquisition: %s", calls).isLessThanOrEqualTo(9.2);
		// one PUBLISH per hand-off at most, each to the one instance whose waiter is next
		assertThat(calls.getOrDefault("publish", 0L)).isLessThanOrEqualTo(acquisitions.get());
		for (RedisLockService instance : instances) {
			List<?> subscribers = (List<?>) this.server.call("PUBSUB", "NUMSUB", "count:wake:" + instance.getInstanceId());
			assertThat(subscribers.get(1)).isEqualTo(1L);
		}
	}

	@Test
	void noRenewalOutlivesTheRelease() throws Exception {
		RedisLockService service = instance(Duration.ofSeconds(1), Duration.ofMillis(50));
		try (LockHandle held = service.acquire("renewed", Duration.ZERO)) {
			Thread.sleep(1500);
			assertThat(held.isHeld()).isTrue();
		}
		assertThat(commandCalls().getOrDefault("pexpire", 0L)).as("renewals while held").isPositive();
		for (int i = 0; i < 300; i++) {
			service.acquire("churn-" + (i % 7), Duration.ZERO).close();
		}
		// releases are sent without waiting for their replies: let the last one land first
		await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(0).equals(this.server.call("DBSIZE")));
		this.server.call("CONFIG", "RESETSTAT");
		Thread.sleep(1500);
		Map<String, Long> afterRelease = commandCalls();
		assertThat(afterRelease.getOrDefault("pexpire", 0L)).as("renewals after release: %s", afterRelease).isZero();
		assertThat(afterRelease.getOrDefault("evalsha", 0L)).as("scripts after release: %s", afterRelease).isZero();
		assertThat(this.server.call("DBSIZE")).isEqualTo(0L);
	}

	@Test
	void scriptsFlushedFromTheServerAreSentAgain() {
		RedisLockService service = instance(Duration.ofSeconds(30), Duration.ofMillis(500));
		service.acquire("before", Duration.ZERO).close();
		this.server.call("SCRIPT", "FLUSH");
		try (LockHandle handle = service.acquire("after", Duration.ZERO)) {
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(commandCalls().getOrDefault("eval", 0L)).isPositive();
	}

	private Map<String, Long> commandCalls() {
		Map<String, Long> calls = new HashMap<>();
		for (String line : String.valueOf(this.server.call("INFO", "commandstats")).split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String command = line.substring("cmdstat_".length(), line.indexOf(':'));
				String count = line.substring(line.indexOf("calls=") + 6, line.indexOf(',', line.indexOf("calls=")));
				calls.put(command, Long.parseLong(count));
			}
		}
		return calls;
	}

}
