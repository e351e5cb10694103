package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.LogText;
import dev.lockstep.internal.redis.ReplyWait;

/**
 * Waits for a script's reply on the caller's thread, for no longer than the command timeout,
 * and turns Redis trouble into {@link LockUnavailableException}s that name the lock.
 */
final class RedisReplies {

	private final ReplyWait wait;

	RedisReplies(Duration commandTimeout, String redis) {
		this.wait = new ReplyWait(commandTimeout, redis);
	}

	/** The reply; {@code doing} is the verb for messages ("acquiring"), {@code waitTime} the caller's wait or null. */
	<T> T await(CompletableFuture<T> reply, LockKeys keys, String doing, @Nullable Duration waitTime) {
		return this.wait.await(reply, doing + " lock '" + LogText.of(keys.key()) + "'" + waitNote(waitTime),
				LockUnavailableException::new, (ex) -> interrupted(keys, ex));
	}

	static LockNotAcquiredException interrupted(LockKeys keys, InterruptedException ex) {
		return new LockNotAcquiredException("Interrupted while waiting for lock '" + LogText.of(keys.key()) + "'", ex);
	}

	private static String waitNote(@Nullable Duration waitTime) {
		return (waitTime != null) ? " (wait " + DurationText.of(waitTime) + ")" : "";
	}

}
