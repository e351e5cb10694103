package dev.lockstep.internal.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Whether Redis runs a Lua script now, answered within the command timeout: for the health
 * contributor and the console, which must say "down" while a probe of Kubernetes or a page still
 * waits, not after Lettuce's own timeout (a minute by default). It runs over Lockstep's connection
 * ({@link RedisScripts}), so it fails at once while Lettuce knows that connection is down.
 * Internal to Lockstep.
 */
public final class RedisProbe implements AutoCloseable {

	private static final LuaScript PROBE = LuaScript.load(RedisProbe.class, ScriptOutputType.INTEGER, "probe.lua");

	private final RedisScripts redis;

	private final ReplyWait wait;

	/**
	 * @param connectionFactory the application's Redis
	 * @param timeout the longest wait for the probe's reply ({@code lockstep.command-timeout})
	 */
	public RedisProbe(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.redis = new RedisScripts(connectionFactory);
		this.wait = new ReplyWait(timeout, RedisAddress.of(connectionFactory));
	}

	/** Where Redis is tried, in words ("Redis at host:port (spring.data.redis.host/port ...)"). */
	public String redis() {
		return this.wait.redis();
	}

	/**
	 * Null when Redis ran the probe; else why not, in words that name the Redis tried ("Redis at
	 * h:p (...) did not answer within 5s while running Lockstep's probe script").
	 */
	public @Nullable String failure() {
		try {
			Long reply = this.wait.await(this.redis.<Long>run(PROBE, List.of(), List.of()), "running Lockstep's probe script",
					Unreachable::new, (ex) -> new Unreachable("Interrupted while probing " + this.wait.redis(), ex));
			return (reply != null && reply == 1L) ? null
					: this.wait.redis() + " answered Lockstep's probe script with " + reply + ", not 1";
		}
		catch (Unreachable ex) {
			return ex.getMessage();
		}
	}

	@Override
	public void close() {
		this.redis.close();
	}

	/** A probe that got no reply, carrying its words out of {@link ReplyWait}. */
	private static final class Unreachable extends RuntimeException {

		Unreachable(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

}
