package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.testing.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;

/** The lock contract on a real three-master Redis Cluster started by the test. */
class ClusterLockServiceTests extends LockServiceContractTests {

	private static RedisCluster cluster;

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
		connectionFactory = RedisConnections.cluster(cluster);
	}

	@AfterAll
	static void stopCluster() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@Override
	protected LettuceConnectionFactory connectionFactory() {
		return connectionFactory;
	}

	@Test
	void waitingForReplicasIsRefusedOnAClusterNamingTheProperty() {
		org.assertj.core.api.Assertions.assertThatThrownBy(() -> RedisConnections.lockService(connectionFactory, this.prefix,
				(settings) -> settings.setReplicaAcknowledgements(1)))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("lockstep.lock.replica-acknowledgements");
	}

	@Test
	void permitsWorkOnAClusterWithAllKeysOfOneKeyInOneSlot() throws Exception {
		RedisLockService holder = newService();
		RedisLockService waiter = newService();
		LockHandle first = holder.acquirePermit("exports", 2, Duration.ZERO);
		LockHandle second = holder.acquirePermit("exports", 2, Duration.ZERO);
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		java.util.concurrent.CompletableFuture<Long> waiting = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = waiter.acquirePermit("exports", 2, Duration.ofSeconds(30))) {
				return handle.fencingToken();
			}
		});
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
			.until(() -> waiter.permitState("exports").waiting() == 1);
		Set<Integer> slots = RedisConnections.keys(this.redis, this.prefix).stream()
			.map(dev.lockstep.internal.redis.RedisScripts::slot)
			.collect(Collectors.toSet());
		assertThat(RedisConnections.keys(this.redis, this.prefix)).hasSizeGreaterThanOrEqualTo(3);
		assertThat(slots).hasSize(1);
		first.close();
		assertThat(waiting.get(10, java.util.concurrent.TimeUnit.SECONDS)).isGreaterThan(second.fencingToken());
		second.close();
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
			.until(() -> holder.permitState("exports").held() == 0);
	}

	@Test
	void allKeysOfOneLockShareAHashSlotAndLocksSpreadOverTheNodes() throws Exception {
		RedisLockService holder = newService();
		RedisLockService waiter = newService();
		try (LockHandle held = holder.acquire("tenant-9:orders", Duration.ZERO)) {
			Thread thread = new Thread(() -> waiter.acquire("tenant-9:orders", Duration.ofSeconds(30)).close());
			thread.start();
			awaitQueueLength("tenant-9:orders", 1);
			Set<Integer> slots = RedisConnections.keys(this.redis, this.prefix).stream()
				.map(dev.lockstep.internal.redis.RedisScripts::slot)
				.collect(Collectors.toSet());
			assertThat(RedisConnections.keys(this.redis, this.prefix)).hasSizeGreaterThanOrEqualTo(2);
			assertThat(slots).hasSize(1);
			held.close();
			thread.join(30_000);
		}
		List<LockHandle> spread = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			spread.add(holder.acquire("spread-" + i, Duration.ZERO));
		}
		Set<Integer> nodesUsed = new HashSet<>();
		for (int node = 0; node < cluster.nodes().size(); node++) {
			List<?> scan = (List<?>) cluster.nodes().get(node).call("SCAN", "0", "MATCH", this.prefix + "*", "COUNT", "10000");
			if (!((List<?>) scan.get(1)).isEmpty()) {
				nodesUsed.add(node);
			}
		}
		spread.forEach(LockHandle::close);
		assertThat(nodesUsed).hasSize(3);
	}

}
