package dev.lockstep.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

import dev.lockstep.LockUnavailableException;
import dev.lockstep.RateLimiter;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.internal.redis.LuaScript;
import dev.lockstep.internal.redis.RedisAddress;
import dev.lockstep.internal.redis.RedisScripts;

/**
 * {@link RateLimiter} on Redis: each call is one Lua script ({@code rate-limit.lua}) on the key's
 * one value, the generic cell rate algorithm on the Redis server's clock. The connection is opened
 * on first use, so an application can start while Redis is down. A call let through while Redis is
 * unavailable ({@link WhenUnavailable#ALLOW}) gets a decision with 0 remaining.
 */
public class RedisRateLimiter implements RateLimiter, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RedisRateLimiter.class);

	private static final LuaScript RATE_LIMIT = LuaScript.load(RedisRateLimiter.class, ScriptOutputType.MULTI,
			"rate-limit.lua");

	private static final LuaScript VIEW = LuaScript.load(RedisRateLimiter.class, ScriptOutputType.INTEGER,
			"rate-limit-view.lua");

	private static final long WARNING_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final RedisScripts redis;

	private String keyPrefix = NamingRules.DEFAULT_KEY_PREFIX;

	private Duration commandTimeout = Duration.ofSeconds(5);

	private volatile WhenUnavailable whenUnavailable = WhenUnavailable.REFUSE;

	private volatile BiConsumer<String, Decision> decisions = (key, decision) -> {
	};

	private final RecentRateLimits recent = new RecentRateLimits();

	/** Where Redis is tried, in words, for messages. */
	private final String address;

	private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARNING_INTERVAL_NANOS);

	public RedisRateLimiter(RedisConnectionFactory connectionFactory) {
		this.redis = new RedisScripts(connectionFactory);
		this.address = RedisAddress.of(connectionFactory);
	}

	/** Prefix of every key; default {@value NamingRules#DEFAULT_KEY_PREFIX}. */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = NamingRules.keyPrefix("Key prefix", keyPrefix);
	}

	/** Longest wait for one Redis reply; default 5s. */
	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = DurationRules.positive("Command timeout", commandTimeout);
	}

	/** What a call gets while Redis cannot be reached or fails; default {@link WhenUnavailable#REFUSE}. */
	public void setWhenUnavailable(WhenUnavailable whenUnavailable) {
		Assert.notNull(whenUnavailable, "WhenUnavailable must not be null");
		this.whenUnavailable = whenUnavailable;
	}

	/** Told each decision and its key (for metrics), also one let through while Redis was unavailable; it must not block. */
	public void setDecisionListener(BiConsumer<String, Decision> decisions) {
		Assert.notNull(decisions, "Decision listener must not be null");
		this.decisions = decisions;
	}

	/** Loads the script, waiting at most the command timeout (Redis may be down: then the first call loads it). */
	public void preload() {
		this.redis.preload(List.of(RATE_LIMIT), this.commandTimeout);
	}

	@Override
	public Decision tryAcquire(String key, long limit, Duration per) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("key must not be blank, was '" + key + "'");
		}
		NamingRules.insideHashTag("key", key);
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, was " + limit);
		}
		DurationRules.positive("per", per);
		long perMicros = TimeUnit.NANOSECONDS.toMicros(per.toNanos());
		CompletableFuture<List<Object>> reply = this.redis.run(RATE_LIMIT, List.of(this.keyPrefix + "{rate:" + key + "}"),
				List.of(Long.toString(limit), Long.toString(perMicros)));
		Decision decision;
		try {
			List<Object> values = reply.get(this.commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
			decision = new Decision((Long) values.get(0) == 1L, (Long) values.get(1),
					Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos((Long) values.get(2))));
		}
		catch (TimeoutException ex) {
			reply.cancel(false);
			decision = unavailable(key, this.address + " did not answer within " + DurationText.of(this.commandTimeout)
					+ " while checking rate limit '" + key + "'", ex);
		}
		catch (ExecutionException ex) {
			decision = unavailable(key, this.address + " failed while checking rate limit '" + key + "': "
					+ ex.getCause().getMessage(), ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockUnavailableException("Interrupted while checking rate limit '" + key + "'", ex);
		}
		this.recent.decided(key, limit, per, decision);
		this.decisions.accept(key, decision);
		return decision;
	}

	/** The keys this instance decided on most recently (up to 100), the latest first. */
	public List<RecentKey> recentKeys() {
		return this.recent.keys();
	}

	/**
	 * A key's bucket now, read from Redis without taking a call. The limit and period are those
	 * this instance last used for the key; without them ({@code null} when it has not called the
	 * key lately) only how long until the bucket is full again is known.
	 * @throws LockUnavailableException if Redis cannot be reached or fails
	 */
	public KeyState keyState(String key) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("key must not be blank, was '" + key + "'");
		}
		NamingRules.insideHashTag("key", key);
		CompletableFuture<Long> reply = this.redis.run(VIEW, List.of(this.keyPrefix + "{rate:" + key + "}"), List.of());
		long micros;
		try {
			micros = reply.get(this.commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException | ExecutionException ex) {
			reply.cancel(false);
			throw new LockUnavailableException(this.address + " failed or did not answer while reading rate limit '" + key + "'",
					ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockUnavailableException("Interrupted while reading rate limit '" + key + "'", ex);
		}
		RecentKey recent = this.recent.get(key);
		Long remaining = null;
		if (recent != null) {
			long perMicros = TimeUnit.NANOSECONDS.toMicros(recent.per().toNanos());
			long interval = (perMicros + recent.limit() - 1) / recent.limit();
			remaining = Math.max(0, Math.min(recent.limit(), (perMicros - micros) / interval));
		}
		return new KeyState(key, Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(micros)), remaining, recent);
	}

	/** Refuses (fails closed) or, when configured to, lets the call through with a warning. */
	private Decision unavailable(String key, String message, Throwable cause) {
		if (this.whenUnavailable == WhenUnavailable.REFUSE) {
			throw new LockUnavailableException(message + "; the call is refused (lockstep.rate-limit.when-unavailable=refuse)",
					cause);
		}
		long now = System.nanoTime();
		long last = this.lastWarning.get();
		if (now - last >= WARNING_INTERVAL_NANOS && this.lastWarning.compareAndSet(last, now)) {
			logger.warn("{}; letting calls through unlimited while Redis is unavailable "
					+ "(lockstep.rate-limit.when-unavailable=allow; this warning repeats at most every 10s)", message, cause);
		}
		return new Decision(true, 0, Duration.ZERO);
	}

	/**
	 * A key this instance decided on.
	 * @param key the limited key ({@code name:key} for {@code @RateLimited})
	 * @param limit the limit of its last call here
	 * @param per the period of its last call here
	 * @param lastAllowed whether its last call here was allowed
	 * @param decidedAt when its last call here was decided
	 */
	public record RecentKey(String key, long limit, Duration per, boolean lastAllowed, Instant decidedAt) {
	}

	/**
	 * A key's bucket as Redis holds it.
	 * @param key the limited key
	 * @param fullIn how long until the bucket is full again (zero when it is: an idle key takes no memory)
	 * @param remaining calls it allows now, when this instance knows its limit; otherwise null
	 * @param lastHere this instance's last call for the key, or null
	 */
	public record KeyState(String key, Duration fullIn, @Nullable Long remaining, @Nullable RecentKey lastHere) {
	}

	/** Releases the connection. */
	@Override
	public void close() {
		this.redis.close();
	}

}
