package dev.lockstep.lock;

import java.util.List;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.internal.redis.RedisScripts;

/**
 * The lock scripts on the shared test Redis, with a template to read what they wrote, under a key
 * prefix of their own; for the protocol tests that drive the scripts directly. Closing deletes the
 * keys under the prefix and closes the connection.
 */
final class ScriptRedis implements AutoCloseable {

	private final LettuceConnectionFactory factory = RedisConnections.standalone();

	private final RedisScripts redis = new RedisScripts(this.factory);

	private final String prefix = RedisConnections.uniquePrefix();

	private final LockScripts scripts = new LockScripts(this.redis, this.prefix + "wake:");

	private final StringRedisTemplate template = new StringRedisTemplate(this.factory);

	ScriptRedis() {
		this.template.afterPropertiesSet();
	}

	LockScripts scripts() {
		return this.scripts;
	}

	StringRedisTemplate template() {
		return this.template;
	}

	String prefix() {
		return this.prefix;
	}

	@Override
	public void close() {
		List<String> keys = RedisConnections.keys(this.template, this.prefix);
		if (!keys.isEmpty()) {
			this.template.delete(keys);
		}
		this.redis.close();
		this.factory.destroy();
	}

}
