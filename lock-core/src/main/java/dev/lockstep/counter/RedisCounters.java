package dev.lockstep.counter;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

import dev.lockstep.Counters;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.internal.redis.CallIds;
import dev.lockstep.internal.redis.RedisAddress;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.ReplyWait;

/**
 * {@link Counters} on Redis: each call is one Lua script on the count's key, so the check against
 * the limit and the addition are one step however many instances and threads call at once. The
 * connection is opened on first use, so an application can start while Redis is down. A call that
 * Lettuce sends again after a reconnect (its reply lost) counts once and answers as the first
 * did: every call carries an id, the caller's idempotency id or one drawn for it. A call that
 * fails with {@link LockUnavailableException} because Redis did not answer in time may still have
 * been counted once Redis got it: retry it with an idempotency id to count it once.
 */
public class RedisCounters implements Counters, AutoCloseable {

	/** How long an idempotency id is remembered unless configured otherwise. */
	public static final Duration DEFAULT_IDEMPOTENCY_WINDOW = Duration.ofMinutes(10);

	private final RedisScripts redis;

	private final CounterScripts scripts;

	/** Where Redis is, in words, for messages. */
	private final String address;

	private String keyPrefix = NamingRules.DEFAULT_KEY_PREFIX;

	private Duration commandTimeout = Duration.ofSeconds(5);

	private Duration idempotencyWindow = DEFAULT_IDEMPOTENCY_WINDOW;

	private volatile Consumer<String> rejections = (key) -> {
	};

	/** The ids it draws for calls without an idempotency id. */
	private final CallIds callIds = new CallIds();

	public RedisCounters(RedisConnectionFactory connectionFactory) {
		this.redis = new RedisScripts(connectionFactory);
		this.scripts = new CounterScripts(this.redis);
		this.address = RedisAddress.of(connectionFactory);
	}

	/** Prefix of every key; default {@value NamingRules#DEFAULT_KEY_PREFIX}. */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = NamingRules.keyPrefix("Key prefix", keyPrefix);
	}

	/** Longest wait for one Redis reply before a call fails with {@link LockUnavailableException}; default 5s. */
	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = DurationRules.positive("Command timeout", commandTimeout);
	}

	/**
	 * How long an idempotency id is remembered: a call with the same id within it answers as the
	 * first did; default 10m.
	 */
	public void setIdempotencyWindow(Duration idempotencyWindow) {
		this.idempotencyWindow = DurationRules.positive("Idempotency window", idempotencyWindow);
	}

	/** Told the key of each refused increment (for metrics); it must not block. */
	public void setRejectionListener(Consumer<String> rejections) {
		Assert.notNull(rejections, "Rejection listener must not be null");
		this.rejections = rejections;
	}

	/** Loads the scripts, waiting at most the command timeout (Redis may be down: then the first calls load them). */
	public void preload() {
		this.scripts.preload(this.commandTimeout);
	}

	@Override
	public boolean tryIncrement(String key, long amount, long limit) {
		return increment(key, amount, limit, null, null);
	}

	@Override
	public boolean tryIncrement(String key, long amount, long limit, Duration expiry) {
		return increment(key, amount, limit, DurationRules.positive("expiry", expiry), null);
	}

	@Override
	public boolean tryIncrement(String key, long amount, long limit, String idempotencyId) {
		if (idempotencyId == null || idempotencyId.isBlank()) {
			throw new IllegalArgumentException("idempotencyId must not be blank, was '" + idempotencyId + "'");
		}
		return increment(key, amount, limit, null, idempotencyId);
	}

	private boolean increment(String key, long amount, long limit, @Nullable Duration expiry,
			@Nullable String idempotencyId) {
		CounterKeys keys = CounterKeys.of(this.keyPrefix, key);
		notNegative("amount", amount);
		notNegative("limit", limit);
		CounterKeys.CallRecord record = (idempotencyId != null) ? keys.idempotent(idempotencyId, this.idempotencyWindow)
				: nextCall(keys);
		boolean added = await(this.scripts.increment(keys, amount, limit, expiry, record), keys, "incrementing").added();
		if (!added) {
			this.rejections.accept(key);
		}
		return added;
	}

	@Override
	public long decrement(String key, long amount) {
		CounterKeys keys = CounterKeys.of(this.keyPrefix, key);
		notNegative("amount", amount);
		return await(this.scripts.decrement(keys, amount, nextCall(keys)), keys, "decrementing");
	}

	/**
	 * The record of a call without an idempotency id, by an id drawn for it: Lettuce sends a call
	 * again after a reconnect when its reply was lost, and the caller hears only that reply; the
	 * record makes it answer as the first did rather than count twice. Kept for twice the command
	 * timeout: a call whose caller stopped waiting is cancelled, and Lettuce never sends a cancelled
	 * command again (see {@code RedisScripts}).
	 */
	private CounterKeys.CallRecord nextCall(CounterKeys keys) {
		return keys.call(this.callIds.next(), this.commandTimeout.multipliedBy(2));
	}

	@Override
	public long current(String key) {
		CounterKeys keys = CounterKeys.of(this.keyPrefix, key);
		return await(this.scripts.current(keys), keys, "reading");
	}

	/** Releases the connection. */
	@Override
	public void close() {
		this.redis.close();
	}

	private static void notNegative(String name, long value) {
		if (value < 0) {
			throw new IllegalArgumentException(name + " must not be negative, was " + value);
		}
	}

	/** The reply, waited for at most the command timeout; Redis trouble becomes {@link LockUnavailableException}. */
	private <T> T await(CompletableFuture<T> reply, CounterKeys keys, String doing) {
		String what = doing + " counter '" + keys.key() + "'";
		return new ReplyWait(this.commandTimeout, this.address).await(reply, what, LockUnavailableException::new,
				(ex) -> new LockUnavailableException("Interrupted while " + what, ex));
	}

}
