package dev.lockstep.internal.redis;

import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Where a connection factory reaches Redis, in words for messages: "Redis at host:port", "Redis
 * master 'm' through the Sentinels at h1:26379, h2:26379" or "Redis Cluster with seed nodes ...",
 * and the Spring Boot settings that configure it, so that an operator reading "Redis did not
 * answer" knows what was tried and where to change it.
 */
public final class RedisAddress {

	private RedisAddress() {
	}

	/** The address of {@code connectionFactory} in words; "Redis" alone when it cannot be told. */
	public static String of(RedisConnectionFactory connectionFactory) {
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			return "Redis";
		}
		if (lettuce.isClusterAware() && lettuce.getClusterConfiguration() != null) {
			return "Redis Cluster with seed nodes " + nodes(lettuce.getClusterConfiguration().getClusterNodes())
					+ " (spring.data.redis.cluster.nodes)";
		}
		if (lettuce.isRedisSentinelAware() && lettuce.getSentinelConfiguration() != null) {
			RedisConfiguration.SentinelConfiguration sentinel = lettuce.getSentinelConfiguration();
			String master = (sentinel.getMaster() != null) ? sentinel.getMaster().getName() : "?";
			return "Redis master '" + master + "' through the Sentinels at " + nodes(sentinel.getSentinels())
					+ " (spring.data.redis.sentinel.*)";
		}
		return "Redis at " + lettuce.getHostName() + ":" + lettuce.getPort()
				+ " (spring.data.redis.host/port or spring.data.redis.url)";
	}

	private static String nodes(Iterable<RedisNode> nodes) {
		return StreamSupport.stream(nodes.spliterator(), false)
			.map((node) -> node.getHost() + ":" + node.getPort())
			.collect(Collectors.joining(", "));
	}

}
