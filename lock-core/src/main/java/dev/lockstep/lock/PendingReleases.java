package dev.lockstep.lock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.internal.InFlightWork;
import dev.lockstep.internal.LogText;

/**
 * Releases sent without waiting for their reply: whatever this instance sends next on the
 * connection reaches Redis after them, and a caller does not pay a second round trip per lock.
 * Kept until answered, so that a single attempt on the same key can wait for the release before
 * it (see {@link #awaited}) and a closing engine can wait for all of them.
 */
final class PendingReleases {

	private static final Logger logger = LoggerFactory.getLogger(LockEngine.class);

	private final LockScripts scripts;

	private final Duration commandTimeout;

	private final InFlightWork sent = new InFlightWork();

	/** By lock key: the release last sent and not yet answered. */
	private final Map<String, CompletableFuture<Void>> byLock = new ConcurrentHashMap<>();

	PendingReleases(LockScripts scripts, Duration commandTimeout) {
		this.scripts = scripts;
		this.commandTimeout = commandTimeout;
	}

	/** Sends the release of {@code lock}; {@code wasHeld} says whether its holder still thought it held. */
	void send(LockOwnership lock, boolean wasHeld) {
		String key = lock.keys().key();
		this.sent.enter();
		CompletableFuture<Void> answered = new CompletableFuture<>();
		this.byLock.put(lock.keys().lock(), answered);
		this.scripts.release(lock.keys(), lock.owner(), lock.fencingToken()).whenComplete((released, error) -> {
			this.byLock.remove(lock.keys().lock(), answered);
			answered.complete(null);
			if (error != null) {
				logger.warn("Could not release lock '{}'; it frees itself when its lease ends: {}", LogText.of(key),
						error.toString());
			}
			else if (released == 0 && wasHeld) {
				logger.warn("Lock '{}' (fencing token {}) had already expired in Redis when it was released; "
						+ "its lease was too short for the work it protected", LogText.of(key), lock.fencingToken());
			}
			this.sent.leave();
		});
	}

	/** The release of {@code lockKey} on its way, if any. */
	@Nullable CompletableFuture<Void> of(String lockKey) {
		return this.byLock.get(lockKey);
	}

	/**
	 * Waits, up to the command timeout, for a release of this instance that was on its way when a
	 * single attempt was sent, and says whether it arrived. A release that met NOSCRIPT (Redis
	 * lost its script cache) goes again in full, after calls sent meanwhile, so the attempt may
	 * have found the lock still held by this instance.
	 */
	boolean awaited(CompletableFuture<Void> release, LockKeys keys) {
		try {
			release.get(this.commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw RedisReplies.interrupted(keys, ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			// the release failed or is late: the attempt's own answer stands
			return false;
		}
		return true;
	}

	/** Gives the releases on their way up to the command timeout to arrive, before the connection closes. */
	void awaitAll() {
		this.sent.awaitNone(this.commandTimeout);
	}

}
