package dev.lockstep.lock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;

/**
 * The threads of this instance that wait in some lock's queue. Wake-ups arrive on the instance's
 * own channel (one subscription for all locks) and name the one waiter the lock was handed to;
 * a periodic heartbeat per waited-for lock keeps this instance's entries alive and catches a
 * wake-up that got lost.
 */
final class LockWaiters implements MessageListener {

	private static final Logger logger = LoggerFactory.getLogger(LockWaiters.class);

	private final String instance;

	private final StrayGrants strayGrants;

	private final Map<String, Waiter> bySequence = new ConcurrentHashMap<>();

	LockWaiters(String instance, StrayGrants strayGrants) {
		this.instance = instance;
		this.strayGrants = strayGrants;
	}

	Waiter register(LockKeys keys, String owner, String sequence, String entry) {
		Waiter waiter = new Waiter(keys, owner, entry);
		this.bySequence.put(sequence, waiter);
		return waiter;
	}

	void remove(String sequence, Waiter waiter) {
		this.bySequence.remove(sequence, waiter);
	}

	boolean isEmpty() {
		return this.bySequence.isEmpty();
	}

	/** A wake-up: '{@code <sequence>:<token>:<lock key>}'. */
	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		String[] parts = new String(message.getBody(), StandardCharsets.UTF_8).split(":", 3);
		if (parts.length != 3) {
			logger.warn("Ignoring malformed Lockstep wake-up '{}'", new String(message.getBody(), StandardCharsets.UTF_8));
			return;
		}
		long token = Long.parseLong(parts[1]);
		Waiter waiter = this.bySequence.get(parts[0]);
		if (waiter != null && waiter.keys.lock().equals(parts[2])) {
			waiter.granted.complete(token);
		}
		else {
			this.strayGrants.handedToNobody(parts[2], this.instance + ":" + parts[0]);
		}
	}

	/**
	 * Visits every lock this instance waits for; see heartbeat.lua. A lock whose lease ends before
	 * the next heartbeat is visited again just after it ends, so a dead holder's lock is taken over
	 * within its lease plus one round trip rather than plus a heartbeat interval.
	 */
	void heartbeat(LockScripts scripts, long livenessMillis, long queueTtlMillis, ScheduledExecutorService timer,
			long intervalMillis) {
		Map<String, List<Waiter>> byLock = new HashMap<>();
		long now = System.nanoTime();
		for (Waiter waiter : this.bySequence.values()) {
			// Only waiters queued for a whole interval: a short wait needs no heartbeat, and a waiter
			// whose attempt took the lock directly (or has not been answered yet) is not in the queue.
			long queuedAt = waiter.queuedAtNanos;
			if (queuedAt != 0 && now - queuedAt >= TimeUnit.MILLISECONDS.toNanos(intervalMillis) && !waiter.granted.isDone()) {
				byLock.computeIfAbsent(waiter.keys.lock(), (lock) -> new ArrayList<>()).add(waiter);
			}
		}
		for (List<Waiter> waiters : byLock.values()) {
			visit(waiters, scripts, livenessMillis, queueTtlMillis, timer, intervalMillis);
		}
	}

	private void visit(List<Waiter> waiters, LockScripts scripts, long livenessMillis, long queueTtlMillis,
			ScheduledExecutorService timer, long intervalMillis) {
		LockKeys keys = waiters.get(0).keys;
		List<String> entries = waiters.stream().filter((waiter) -> !waiter.granted.isDone()).map((waiter) -> waiter.entry).toList();
		if (entries.isEmpty()) {
			return;
		}
		scripts.heartbeat(keys, this.instance, livenessMillis, queueTtlMillis, entries).whenComplete((reply, error) -> {
			if (error != null) {
				logger.debug("Heartbeat for lock '{}' failed", keys.key(), error);
				return;
			}
			byte[] holder = (byte[]) reply.get(0);
			long ttl = (Long) reply.get(1);
			if (holder != null && !wakeIfHolder(waiters, new String(holder, StandardCharsets.UTF_8))
					&& ttl >= 0 && ttl < intervalMillis && !timer.isShutdown()) {
				try {
					timer.schedule(() -> visit(waiters, scripts, livenessMillis, queueTtlMillis, timer, intervalMillis),
							ttl + 2, TimeUnit.MILLISECONDS);
				}
				catch (RejectedExecutionException ex) {
					// stopping
				}
			}
		});
	}

	/** Completes the waiter that holds the lock now, if it is one of {@code waiters}. */
	private boolean wakeIfHolder(List<Waiter> waiters, String holderValue) {
		int tokenStart = holderValue.lastIndexOf(':');
		String owner = holderValue.substring(0, tokenStart);
		for (Waiter waiter : waiters) {
			if (waiter.owner.equals(owner)) {
				waiter.granted.complete(Long.parseLong(holderValue.substring(tokenStart + 1)));
				return true;
			}
		}
		return false;
	}

	/** Where a wake-up for a waiter that already left goes. */
	interface StrayGrants {

		void handedToNobody(String lockKey, String owner);

	}

	/** One thread waiting in one lock's queue. */
	static final class Waiter {

		private final LockKeys keys;

		private final String owner;

		private final String entry;

		private final CompletableFuture<Long> granted = new CompletableFuture<>();

		private volatile long queuedAtNanos;

		private Waiter(LockKeys keys, String owner, String entry) {
			this.keys = keys;
			this.owner = owner;
			this.entry = entry;
		}

		/** Redis answered that this waiter joined the queue. */
		void queued() {
			this.queuedAtNanos = System.nanoTime() | 1;
		}

		/** The token once the lock is handed to this waiter, or null when {@code nanos} pass first. */
		@Nullable Long await(long nanos) throws InterruptedException {
			try {
				return this.granted.get(nanos, TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException ex) {
				return null;
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException(ex.getCause());
			}
		}

	}

}
