package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

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

	/**
	 * The reply without waiting for it: fails with the same words as {@link #await} when Redis
	 * fails or does not answer within the command timeout (timed on {@code timer}).
	 */
	<T> CompletableFuture<T> async(CompletableFuture<T> reply, LockKeys keys, String doing, @Nullable Duration waitTime,
			ScheduledExecutorService timer) {
		CompletableFuture<T> result = new CompletableFuture<>();
		reply.whenComplete((value, error) -> {
			if (error == null) {
				result.complete(value);
			}
			else {
				Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
				result.completeExceptionally(new LockUnavailableException(this.wait.redis() + " failed while " + doing + " lock '"
						+ LogText.of(keys.key()) + "'" + waitNote(waitTime) + ": " + cause.getMessage(), cause));
			}
		});
		if (!result.isDone()) {
			try {
				timer.schedule(() -> {
					if (result.completeExceptionally(new LockUnavailableException(this.wait.redis() + " did not answer within "
							+ DurationText.of(this.wait.timeout()) + " while " + doing + " lock '" + LogText.of(keys.key()) + "'"
							+ waitNote(waitTime), null))) {
						reply.cancel(false);
					}
				}, this.wait.timeout().toNanos(), TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				result.completeExceptionally(new LockUnavailableException("Lock service stopped while " + doing + " lock '"
						+ LogText.of(keys.key()) + "'", ex));
			}
		}
		return result;
	}

	static LockNotAcquiredException interrupted(LockKeys keys, InterruptedException ex) {
		return new LockNotAcquiredException("Interrupted while waiting for lock '" + LogText.of(keys.key()) + "'", ex);
	}

	private static String waitNote(@Nullable Duration waitTime) {
		return (waitTime != null) ? " (wait " + DurationText.of(waitTime) + ")" : "";
	}

}
