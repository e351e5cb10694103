package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.QueueStats;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Serial queues on a real three-master Redis Cluster: each queue in one slot, the queues spread over the masters. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterQueueTests {

	private static final List<String> QUEUES = List.of("imports", "exports", "reports", "emails");

	private static RedisCluster cluster;

	private static LettuceConnectionFactory factory;

	private final String prefix = RedisConnections.uniquePrefix();

	private final List<RedisSerialQueue> instances = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
		factory = RedisConnections.cluster(cluster);
	}

	@AfterAll
	static void stopCluster() {
		if (factory != null) {
			factory.destroy();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@AfterEach
	void stopInstances() {
		this.instances.forEach(RedisSerialQueue::stop);
	}

	@Test
	void queuesRunInOrderPerGroupOnAClusterEachInOneSlotAndSpreadOverTheMasters() {
		GroupProbe probe = new GroupProbe();
		for (String name : List.of("a", "b")) {
			RedisSerialQueue instance = new RedisSerialQueue(factory, SerialQueueTests.JSON);
			instance.setKeyPrefix(this.prefix);
			instance.setInstanceId(name);
			instance.setShutdownTimeout(Duration.ZERO);
			for (String queue : QUEUES) {
				instance.listen(queue, 2, SerialQueueTests.items((task, item) -> probe.run(task.id(),
						task.queue() + "/" + item.group(), item.sequence(), TimeUnit.MILLISECONDS.toNanos(item.workMillis()))),
						"handler of " + queue + " on " + name);
			}
			instance.start();
			this.instances.add(instance);
		}
		RedisSerialQueue submitter = this.instances.get(0);
		List<String> ids = new ArrayList<>();
		for (int sequence = 0; sequence < 5; sequence++) {
			for (String queue : QUEUES) {
				for (int group = 0; group < 6; group++) {
					ids.add(submitter.submit(queue, "g" + group, new Item("g" + group, sequence, 2)));
				}
			}
		}
		await().atMost(Duration.ofSeconds(90)).until(() -> probe.total.get() >= ids.size());
		assertThat(probe.overlaps).hasValue(0);
		assertThat(probe.outOfOrder).hasValue(0);
		assertThat(probe.notRunOnce(ids)).isZero();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> QUEUES.forEach((queue) -> assertThat(submitter.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 0))));

		Set<Integer> mastersUsed = new HashSet<>();
		for (int node = 0; node < cluster.nodes().size(); node++) {
			List<?> scan = (List<?>) cluster.nodes().get(node).call("SCAN", "0", "MATCH", this.prefix + "*", "COUNT", "100000");
			List<?> keys = (List<?>) scan.get(1);
			if (!keys.isEmpty()) {
				mastersUsed.add(node);
			}
		}
		for (String queue : QUEUES) {
			String base = this.prefix + "{queue:" + queue + "}";
			assertThat(RedisScripts.slot(base + ":t:x")).isEqualTo(RedisScripts.slot(base + ":g:g1"))
				.isEqualTo(RedisScripts.slot(base + ":ready"));
		}
		assertThat(mastersUsed).as("the four queues' keys live on more than one master").hasSizeGreaterThan(1);
	}

}
