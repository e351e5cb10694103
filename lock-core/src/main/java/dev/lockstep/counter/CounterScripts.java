package dev.lockstep.counter;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import dev.lockstep.internal.redis.FeatureScripts;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.ScriptSet;

/** The counters' Lua scripts with typed arguments and replies; each call is one round trip. */
final class CounterScripts extends FeatureScripts {

	private static final ScriptSet SCRIPTS = new ScriptSet(CounterScripts.class)
		.returning(ScriptOutputType.MULTI, "counter-increment.lua")
		.returning(ScriptOutputType.INTEGER, "counter-decrement.lua", "counter-current.lua");

	CounterScripts(RedisScripts redis) {
		super(redis, SCRIPTS);
	}

	/**
	 * Adds {@code amount} unless the count would exceed {@code limit}, once per {@code record}: the
	 * same call run again while its record is kept answers as the first run did.
	 * @param expiry of a count this call creates, or null for none
	 */
	CompletableFuture<Incremented> increment(CounterKeys keys, long amount, long limit, @Nullable Duration expiry,
			CounterKeys.CallRecord record) {
		return this.<List<Object>>run("counter-increment.lua", List.of(keys.count(), record.key()), List.of(Long.toString(amount),
				Long.toString(limit), Long.toString((expiry != null) ? expiry.toMillis() : 0), Long.toString(record.window().toMillis())))
			.thenApply((reply) -> new Incremented((Long) reply.get(0) == 1L, (Long) reply.get(1)));
	}

	/**
	 * The count after taking {@code amount} off it, never below 0, once per {@code record}: the same
	 * call run again while its record is kept answers as the first run did.
	 */
	CompletableFuture<Long> decrement(CounterKeys keys, long amount, CounterKeys.CallRecord record) {
		return run("counter-decrement.lua", List.of(keys.count(), record.key()),
				List.of(Long.toString(amount), Long.toString(record.window().toMillis())));
	}

	/** The count now; 0 when there is none. */
	CompletableFuture<Long> current(CounterKeys keys) {
		return run("counter-current.lua", keys.forScripts(), List.of());
	}

	/** How an increment went: whether it was added, and the count after it. */
	record Incremented(boolean added, long count) {
	}

}
