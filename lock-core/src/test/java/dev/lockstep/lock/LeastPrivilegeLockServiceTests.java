package dev.lockstep.lock;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.testing.RedisAclRule;
import dev.lockstep.testing.RedisServer;

/**
 * The whole lock contract as a Redis user that has only the ACL rule docs/security.md gives (for
 * the tests' key prefixes, which all start with {@code t}); the tests look at Redis through a
 * connection of the default user.
 */
class LeastPrivilegeLockServiceTests extends LockServiceContractTests {

	private static RedisServer server;

	private static LettuceConnectionFactory restricted;

	private static LettuceConnectionFactory inspection;

	@BeforeAll
	static void connect() {
		server = RedisServer.start();
		RedisAclRule.documented().apply(server, "lockstep", "s3cret", "t");
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
		configuration.setUsername("lockstep");
		configuration.setPassword("s3cret");
		restricted = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		restricted.afterPropertiesSet();
		restricted.start();
		inspection = RedisConnections.standalone(server.host(), server.port());
	}

	@AfterAll
	static void disconnect() {
		restricted.destroy();
		inspection.destroy();
		server.close();
	}

	@Override
	protected LettuceConnectionFactory connectionFactory() {
		return restricted;
	}

	@Override
	protected LettuceConnectionFactory inspectionFactory() {
		return inspection;
	}

}
