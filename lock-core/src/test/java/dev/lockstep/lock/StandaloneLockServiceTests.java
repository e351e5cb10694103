package dev.lockstep.lock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The lock contract on a single Redis server. */
class StandaloneLockServiceTests extends LockServiceContractTests {

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void connect() {
		connectionFactory = RedisConnections.standalone();
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@Override
	protected LettuceConnectionFactory connectionFactory() {
		return connectionFactory;
	}

}
