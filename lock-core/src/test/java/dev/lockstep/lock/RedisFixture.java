package dev.lockstep.lock;

import java.util.List;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.testing.TestRedis;

/**
 * The Redis of one test, as a JUnit extension: before each test, a connection to the shared test
 * server, a template over it and a key prefix no other test uses; after each test (after its own
 * {@code @AfterEach} methods), the keys under that prefix deleted and the connection closed.
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * final RedisFixture redis = new RedisFixture();
 * </pre>
 */
public final class RedisFixture implements BeforeEachCallback, AfterEachCallback {

	private LettuceConnectionFactory factory;

	private StringRedisTemplate template;

	private String prefix;

	@Override
	public void beforeEach(ExtensionContext context) {
		this.factory = RedisConnections.standalone();
		this.template = new StringRedisTemplate(this.factory);
		this.template.afterPropertiesSet();
		this.prefix = RedisConnections.uniquePrefix();
	}

	@Override
	public void afterEach(ExtensionContext context) {
		try {
			List<String> keys = keys();
			if (!keys.isEmpty()) {
				this.template.delete(keys);
			}
		}
		finally {
			this.factory.destroy();
		}
	}

	/** The shared test server. */
	public TestRedis.Endpoint endpoint() {
		return TestRedis.standalone();
	}

	/** A started connection factory, closed after the test. */
	public LettuceConnectionFactory factory() {
		return this.factory;
	}

	public StringRedisTemplate template() {
		return this.template;
	}

	/** This test's own key prefix; everything under it is deleted after the test. */
	public String prefix() {
		return this.prefix;
	}

	/** The keys under this test's prefix, sorted. */
	public List<String> keys() {
		return RedisConnections.keys(this.template, this.prefix);
	}

}
