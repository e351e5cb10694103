package dev.lockstep.internal.redis;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockUnavailableException;
import dev.lockstep.SerialQueueException;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.queue.RedisSerialQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** "Redis did not answer" says which Redis was tried and which settings configure it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisAddressTests {

	@Test
	void aLockOrQueueCallOnAnUnreachableRedisNamesItsAddressAndSettings() throws Exception {
		int port;
		try (ServerSocket free = new ServerSocket(0)) {
			port = free.getLocalPort();
		}
		LettuceConnectionFactory nowhere = RedisConnections.standalone("127.0.0.1", port);
		RedisLockService locks = new RedisLockService(nowhere);
		locks.setCommandTimeout(Duration.ofMillis(500));
		RedisSerialQueue queue = new RedisSerialQueue(nowhere, JsonMapper.builder().build());
		queue.setCommandTimeout(Duration.ofMillis(500));
		try {
			locks.start();
			String address = "Redis at 127.0.0.1:" + port + " (spring.data.redis.host/port or spring.data.redis.url)";
			assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(() -> locks.acquire("orders", Duration.ZERO))
				.withMessageContaining(address);
			assertThatExceptionOfType(SerialQueueException.class).isThrownBy(() -> queue.submit("imports", "g", "x"))
				.withMessageContaining(address);
		}
		finally {
			locks.stop();
			nowhere.destroy();
		}
	}

	@Test
	void sentinelAndClusterSettingsAreNamedToo() {
		LettuceConnectionFactory sentinel = new LettuceConnectionFactory(
				new RedisSentinelConfiguration("mymaster", Set.of("s1:26379")));
		assertThat(RedisAddress.of(sentinel))
			.isEqualTo("Redis master 'mymaster' through the Sentinels at s1:26379 (spring.data.redis.sentinel.*)");
		LettuceConnectionFactory cluster = new LettuceConnectionFactory(new RedisClusterConfiguration(List.of("n1:7000")));
		assertThat(RedisAddress.of(cluster)).isEqualTo("Redis Cluster with seed nodes n1:7000 (spring.data.redis.cluster.nodes)");
	}

}
