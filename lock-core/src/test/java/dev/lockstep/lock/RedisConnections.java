package dev.lockstep.lock;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.testing.RedisCluster;
import dev.lockstep.testing.TestRedis;

/** Connection factories and lock services on real Redis servers, for tests. */
public final class RedisConnections {

	private RedisConnections() {
	}

	public static LettuceConnectionFactory standalone() {
		TestRedis.Endpoint redis = TestRedis.standalone();
		return standalone(redis.host(), redis.port());
	}

	public static LettuceConnectionFactory standalone(String host, int port) {
		return started(new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port), clientConfiguration()));
	}

	public static LettuceConnectionFactory cluster(RedisCluster cluster) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration(Arrays.asList(cluster.nodeList().split(",")));
		// as an application on a cluster that fails over would: the topology refreshed on MOVED, on reconnects and every second
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(10))
			.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
			.build();
		return started(new LettuceConnectionFactory(configuration, client));
	}

	/** Connects to the master that the Sentinel at {@code host:port} names for {@code masterName}. */
	public static LettuceConnectionFactory sentinel(String masterName, String host, int port) {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master(masterName)
			.sentinel(host, port);
		return started(new LettuceConnectionFactory(configuration, clientConfiguration()));
	}

	private static LettuceClientConfiguration clientConfiguration() {
		return LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build();
	}

	private static LettuceConnectionFactory started(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** A key prefix no other test uses, so tests can inspect and clean up their own keys. */
	public static String uniquePrefix() {
		return "t" + UUID.randomUUID().toString().substring(0, 8) + ":";
	}

	/**
	 * A started service; {@code settings} runs before it starts. Its shutdown does not wait for
	 * holders (tests stop services with locks still held) unless {@code settings} says otherwise.
	 */
	public static RedisLockService lockService(LettuceConnectionFactory factory, String prefix,
			Consumer<RedisLockService> settings) {
		RedisLockService service = new RedisLockService(factory);
		service.setKeyPrefix(prefix);
		service.setShutdownTimeout(java.time.Duration.ZERO);
		settings.accept(service);
		service.start();
		return service;
	}

	public static List<String> keys(org.springframework.data.redis.core.StringRedisTemplate redis, String prefix) {
		return redis.keys(prefix + "*").stream().sorted().toList();
	}

}
