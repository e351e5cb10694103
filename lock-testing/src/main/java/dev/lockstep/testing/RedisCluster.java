package dev.lockstep.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Cluster of three masters (no replicas) on loopback, each a {@link RedisServer},
 * with the 16384 slots split evenly and the nodes joined by CLUSTER MEET.
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	private final List<RedisServer> nodes;

	private RedisCluster(List<RedisServer> nodes) {
		this.nodes = nodes;
	}

	/** Starts three masters and waits until every node reports the cluster as ok. */
	public static RedisCluster start() {
		List<RedisServer> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				nodes.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
						"--cluster-node-timeout", "5000"));
			}
			for (int i = 0; i < nodes.size(); i++) {
				int from = SLOTS * i / nodes.size();
				int to = SLOTS * (i + 1) / nodes.size();
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

	private boolean isReady() {
		for (RedisServer node : this.nodes) {
			String info = String.valueOf(node.call("CLUSTER", "INFO"));
			if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + this.nodes.size())
					|| !info.contains("cluster_slots_ok:" + SLOTS)) {
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

	public List<RedisServer> nodes() {
		return this.nodes;
	}

	/** {@code 127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}, as {@code spring.data.redis.cluster.nodes} takes it. */
	public String nodeList() {
		return String.join(",", this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList());
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisServer::close);
	}

}
