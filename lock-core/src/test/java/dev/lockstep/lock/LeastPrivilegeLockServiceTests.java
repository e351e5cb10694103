package dev.lockstep.lock;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.testing.RedisAclRule;
import dev.lockstep.testing.RedisServer;

/**
 * The whole lock contract as a Redis user that has only the ACL rule docs/security.md gives (for
 * the tests' key prefixes, which all start with {@code t}); the tests look at Redis through the
 * same user's connection, and list keys through the default user's.
 */
class LeastPrivilegeLockServiceTests extends LockServiceContractTests {

	private static RedisServer server;

	private static LettuceConnectionFactory restricted;

	private static StringRedisTemplate inspection;

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
		inspection = new StringRedisTemplate(RedisConnections.standalone(server.host(), server.port()));
	}

	@AfterAll
	static void disconnect() {
		restricted.destroy();
		((LettuceConnectionFactory) inspection.getConnectionFactory()).destroy();
		server.close();
	}

	@Override
	protected LettuceConnectionFactory connectionFactory() {
		return restricted;
	}

	/**
	 * {@code KEYS} is not in the rule: read through the default user's connection, after a command
	 * on the services' connection has answered (so after everything they sent before it).
	 */
	@Override
	protected List<String> keysUnderPrefix() {
		this.redis.hasKey(this.prefix + "barrier");
		return RedisConnections.keys(inspection, this.prefix);
	}

}
