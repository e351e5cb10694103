package dev.lockstep.counter;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.RedisCluster;

/**
 * {@link CounterProcessContract} on a real Redis Cluster of three masters: each count and its
 * idempotency records in one slot, whichever master holds it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterCounterProcessTests extends CounterProcessContract {

	private static RedisCluster cluster;

	private static LettuceConnectionFactory factory;

	private static CountingFleet fleet;

	private static RedisCounters counters;

	@BeforeAll
	static void start() {
		cluster = RedisCluster.start();
		factory = RedisConnections.cluster(cluster);
		String prefix = RedisConnections.uniquePrefix();
		StringRedisTemplate template = new StringRedisTemplate(factory);
		template.afterPropertiesSet();
		counters = new RedisCounters(factory);
		counters.setKeyPrefix(prefix);
		fleet = new CountingFleet("cluster", cluster.nodeList(), template, prefix);
	}

	@AfterAll
	static void stop() {
		if (fleet != null) {
			fleet.close();
		}
		if (counters != null) {
			counters.close();
		}
		if (factory != null) {
			factory.destroy();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@Override
	CountingFleet fleet() {
		return fleet;
	}

	@Override
	RedisCounters counters() {
		return counters;
	}

}
