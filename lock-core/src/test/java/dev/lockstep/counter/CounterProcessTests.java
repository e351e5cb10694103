package dev.lockstep.counter;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.TestRedis;

/** {@link CounterProcessContract} on standalone Redis. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CounterProcessTests extends CounterProcessContract {

	private static LettuceConnectionFactory factory;

	private static CountingFleet fleet;

	private static RedisCounters counters;

	@BeforeAll
	static void start() {
		TestRedis.Endpoint redis = TestRedis.standalone();
		factory = RedisConnections.standalone(redis.host(), redis.port());
		String prefix = RedisConnections.uniquePrefix();
		StringRedisTemplate template = new StringRedisTemplate(factory);
		template.afterPropertiesSet();
		counters = new RedisCounters(factory);
		counters.setKeyPrefix(prefix);
		fleet = new CountingFleet("standalone", redis.host() + ":" + redis.port(), template, prefix);
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
