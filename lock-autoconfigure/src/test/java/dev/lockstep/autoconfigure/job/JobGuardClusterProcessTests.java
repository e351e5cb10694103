package dev.lockstep.autoconfigure.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.RedisCluster;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The job guard on a real Redis Cluster (3 masters, each with a replica): 3 instances in JVMs of
 * their own, a 200 ms job every second. For 20 s every slot runs exactly once and the runs rotate
 * over the three; the run ledger is kept. Then the master that holds the job's keys is killed in
 * the middle of a run and its replica promoted: no slot runs twice, slots whose claims could not
 * reach Redis during the failover are skipped (counted), and every slot after it runs once again.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class JobGuardClusterProcessTests {

	private static final List<String> JVM = List.of("-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	private final List<AutoCloseable> parts = new ArrayList<>();

	private final Map<String, JavaProcess> processes = new TreeMap<>();

	@AfterEach
	void stop() throws Exception {
		this.processes.values().forEach(JavaProcess::kill);
		for (AutoCloseable part : this.parts) {
			part.close();
		}
	}

	@Test
	void oneRunPerSlotRotatingOnAClusterAndNoSlotTwiceThroughAMasterFailover() throws Exception {
		RedisCluster cluster = RedisCluster.startWithReplicas(Duration.ofSeconds(1));
		this.parts.add(cluster);
		String prefix = "c" + UUID.randomUUID().toString().substring(0, 8) + ":";
		for (int i = 0; i < 3; i++) {
			String instance = "node-" + i;
			this.processes.put(instance, JavaProcess.start(instance, ClusterJobProcess.class, JVM, cluster.nodeList(),
					prefix, instance));
		}
		this.processes.forEach((instance, process) -> process.awaitLine("STARTED " + instance, Duration.ofSeconds(120)));
		long from = (System.currentTimeMillis() / 1000 + 4) * 1000;
		long calm = from + 20_000;
		sleepUntil(calm + 1_500);

		Map<Long, List<String>> runs = runs();
		List<String> wrong = new ArrayList<>();
		for (long slot = from; slot < calm; slot += 1000) {
			List<String> runners = runs.getOrDefault(slot, List.of());
			if (runners.size() != 1) {
				wrong.add(slot + " ran " + runners.size() + " times: " + runners);
			}
		}
		assertThat(wrong).as("slots before the failover%n%s", outputs()).isEmpty();
		Map<String, Long> perInstance = new TreeMap<>();
		runs.forEach((slot, runners) -> {
			if (slot >= from && slot < calm) {
				runners.forEach((runner) -> perInstance.merge(runner, 1L, Long::sum));
			}
		});
		assertThat(perInstance).as("runs rotate over the three instances").hasSize(3)
			.allSatisfy((instance, count) -> assertThat(count).isGreaterThanOrEqualTo(3));

		// the job's keys share one hash tag: find its master, wait for a run to start, kill the master
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisClusterConfiguration(List.of(cluster.nodeList().split(","))));
		connections.afterPropertiesSet();
		connections.start();
		this.parts.add(connections::destroy);
		StringRedisTemplate redis = new StringRedisTemplate(connections);
		redis.afterPropertiesSet();
		String history = redis.keys(prefix + "{job:*}:history").stream().findFirst().orElseThrow();
		assertThat(redis.opsForList().size(history)).as("the run ledger").isPositive();
		RedisServer master = cluster.masters().stream().filter((node) -> holds(node, history)).findFirst().orElseThrow();
		RedisServer replica = cluster.replicaOf(master).orElseThrow();
		int started = startedLines();
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> startedLines() > started);
		long killedAt = System.currentTimeMillis();
		master.kill();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> String.valueOf(replica.call("INFO", "replication")).contains("role:master"));
		long promotedAt = System.currentTimeMillis();
		long after = (promotedAt / 1000 + 12) * 1000;
		long until = after + 10_000;
		sleepUntil(until + 1_500);

		runs = runs();
		List<String> twice = new ArrayList<>();
		long skipped = 0;
		runs.forEach((slot, runners) -> {
			if (runners.size() > 1) {
				twice.add(slot + " ran " + runners.size() + " times: " + runners);
			}
		});
		for (long slot = calm; slot < after; slot += 1000) {
			if (!runs.containsKey(slot)) {
				skipped++;
			}
		}
		List<String> lateWrong = new ArrayList<>();
		for (long slot = after; slot < until; slot += 1000) {
			if (runs.getOrDefault(slot, List.of()).size() != 1) {
				lateWrong.add(slot + " ran " + runs.getOrDefault(slot, List.of()));
			}
		}
		System.out.printf("Job guard on a cluster: master killed at %d, replica promoted after %d ms; %d of %d slots "
				+ "around the failover skipped; %d slots ran twice%n", killedAt, promotedAt - killedAt, skipped,
				(after - calm) / 1000, twice.size());
		assertThat(twice).as("slots that ran twice%n%s", outputs()).isEmpty();
		assertThat(lateWrong).as("slots after the failover%n%s", outputs()).isEmpty();
	}

	/** Whether {@code node} serves {@code key} (another master answers MOVED). */
	private static boolean holds(RedisServer node, String key) {
		try {
			return Long.valueOf(1).equals(node.call("EXISTS", key));
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private int startedLines() {
		return this.processes.values().stream()
			.mapToInt((process) -> (int) process.lines().stream().filter((line) -> line.startsWith("START ")).count())
			.sum();
	}

	private Map<Long, List<String>> runs() {
		Map<Long, List<String>> runs = new TreeMap<>();
		this.processes.values().forEach((process) -> process.lines()
			.stream()
			.filter((line) -> line.startsWith("START "))
			.map((line) -> line.split(" "))
			.forEach((parts) -> runs.computeIfAbsent(Long.parseLong(parts[2]), (slot) -> new ArrayList<>()).add(parts[1])));
		return runs;
	}

	private String outputs() {
		StringBuilder all = new StringBuilder();
		this.processes.forEach((instance, process) -> all.append("--- ").append(instance).append('\n')
			.append(process.output()).append('\n'));
		return all.toString();
	}

	private static void sleepUntil(long epochMillis) throws InterruptedException {
		long left = epochMillis - System.currentTimeMillis();
		if (left > 0) {
			Thread.sleep(left);
		}
	}

}
