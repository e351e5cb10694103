package dev.lockstep.internal.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;

import dev.lockstep.internal.DurationText;

/**
 * The one way Lockstep waits for a Redis reply on a caller's thread: at most
 * {@code lockstep.command-timeout}, the call cancelled when the wait ends without a reply, and
 * failures worded the same everywhere, naming the Redis that was tried ({@link RedisAddress}):
 * "Redis at host:port did not answer within 2s while acquiring lock 'k'". Internal to Lockstep.
 * @param timeout the longest wait for one reply
 * @param redis where Redis is, in words
 */
public record ReplyWait(Duration timeout, String redis) {

	/**
	 * The reply; a timeout, a failed call or an interrupt become the feature's own exception.
	 * @param reply the call's reply
	 * @param doing what the call does, for messages ("acquiring lock 'k'")
	 * @param failed the exception for a reply that did not come or failed, from message and cause
	 * @param interrupted the exception for an interrupted wait (the interrupt is kept)
	 */
	public <T> T await(CompletableFuture<T> reply, String doing,
			BiFunction<String, Throwable, ? extends RuntimeException> failed,
			Function<InterruptedException, ? extends RuntimeException> interrupted) {
		try {
			return get(reply);
		}
		catch (TimeoutException ex) {
			throw failed.apply(this.redis + " did not answer within " + DurationText.of(this.timeout) + " while " + doing,
					ex);
		}
		catch (ExecutionException ex) {
			throw failed.apply(this.redis + " failed while " + doing + ": " + ex.getCause().getMessage(), ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted.apply(ex);
		}
	}

	/** The reply, waited for at most the timeout; the call is cancelled when the wait ends without it. */
	public <T> T get(CompletableFuture<T> reply) throws InterruptedException, ExecutionException, TimeoutException {
		try {
			return reply.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException | InterruptedException ex) {
			reply.cancel(false);
			throw ex;
		}
	}

}
