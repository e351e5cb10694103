package dev.lockstep.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A real Redis Cluster on loopback: three masters with the 16384 slots split evenly, and
 * optionally a replica for each, every node a {@link RedisServer}, joined by CLUSTER MEET.
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	private static final int MASTERS = 3;

	private final List<RedisServer> nodes;

	private final List<RedisServer> masters;

	private final List<RedisServer> replicas;

	private RedisCluster(List<RedisServer> nodes) {
		this.nodes = nodes;
		this.masters = nodes.subList(0, MASTERS);
		this.replicas = nodes.subList(MASTERS, nodes.size());
	}

	/** Starts three masters and waits until every node reports the cluster as ok. */
	public static RedisCluster start() {
		return start(false, Duration.ofSeconds(5));
	}

	/**
	 * Starts three masters, each with a replica, and waits until every node reports the cluster
	 * as ok and every replica is in sync. A master that stops answering for {@code nodeTimeout}
	 * is failed over to its replica.
	 */
	public static RedisCluster startWithReplicas(Duration nodeTimeout) {
		return start(true, nodeTimeout);
	}

	private static RedisCluster start(boolean withReplicas, Duration nodeTimeout) {
		List<RedisServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < (withReplicas ? 2 * MASTERS : MASTERS); i++) {
				nodes.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
						"--cluster-node-timeout", Long.toString(nodeTimeout.toMillis())));
			}
			for (int i = 0; i < MASTERS; i++) {
				int from = SLOTS * i / MASTERS;
				int to = SLOTS * (i + 1) / MASTERS;
				List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
				for (int slot = from; slot < to; slot++) {
					command.add(Integer.toString(slot));
				}
				nodes.get(i).call(command.toArray(String[]::new));
			}
			for (int i = 1; i < nodes.size(); i++) {
				nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(nodes.get(i).port()));
			}
			RedisCluster cluster = new RedisCluster(nodes);
			if (withReplicas) {
				cluster.attachReplicas();
			}
			if (!RedisServer.await(Duration.ofSeconds(30), cluster::isReady)) {
				throw new IllegalStateException("Redis Cluster did not become ready within 30s:\n" + cluster.describe());
			}
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedisServer::close);
			throw ex;
		}
	}

	/** Once every replica knows its master, makes it replicate that master. */
	private void attachReplicas() {
		for (int i = 0; i < this.replicas.size(); i++) {
			RedisServer replica = this.replicas.get(i);
			String masterId = String.valueOf(this.masters.get(i).call("CLUSTER", "MYID"));
			if (!RedisServer.await(Duration.ofSeconds(30),
					() -> String.valueOf(replica.call("CLUSTER", "NODES")).contains(masterId))) {
				throw new IllegalStateException("Replica " + replica + " did not learn of its master:\n" + describe());
			}
			replica.call("CLUSTER", "REPLICATE", masterId);
		}
	}

	private boolean isReady() {
		for (RedisServer node : this.nodes) {
			String info = String.valueOf(node.call("CLUSTER", "INFO"));
			if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + this.nodes.size())
					|| !info.contains("cluster_slots_ok:" + SLOTS)) {
				return false;
			}
		}
		for (RedisServer replica : this.replicas) {
			if (!String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up")) {
				return false;
			}
		}
		return true;
	}

	private String describe() {
		StringBuilder description = new StringBuilder();
		for (RedisServer node : this.nodes) {
			description.append(node).append(":\n").append(node.call("CLUSTER", "INFO")).append('\n').append(node.log()).append('\n');
		}
		return description.toString();
	}

	/** Every node: the masters first, then their replicas in the same order. */
	public List<RedisServer> nodes() {
		return this.nodes;
	}

	/** The three nodes started as masters (after a failover, one of them may be down or a replica). */
	public List<RedisServer> masters() {
		return this.masters;
	}

	/** The replica started for {@code master}; empty without replicas. */
	public Optional<RedisServer> replicaOf(RedisServer master) {
		int index = this.masters.indexOf(master);
		return (index >= 0 && index < this.replicas.size()) ? Optional.of(this.replicas.get(index))
				: Optional.empty();
	}

	/** {@code 127.0.0.1:p1,127.0.0.1:p2,...} (every node), as {@code spring.data.redis.cluster.nodes} takes it. */
	public String nodeList() {
		return String.join(",", this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList());
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisServer::close);
	}

}
