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

import dev.lockstep.internal.LogText;

/**
 * The attempts of this instance under way on some lock, from before their first call to Redis
 * until they hold the lock or give up, and among them the threads that wait in its queue. An
 * owner id registered here is never taken for one that went away, even before its attempt
 * records the lock it took. Wake-ups arrive on the instance's
 * own channel (one subscription for all locks) and name the one waiter the lock was handed to;
 * a periodic heartbeat per waited-for lock keeps this instance's entries alive and catches a
 * wake-up that got lost. Only a waiting thread writes its own queue entry: a heartbeat that
 * finds it missing asks the thread to queue again.
 */
final class LockWaiters implements MessageListener {

	private static final Logger logger = LoggerFactory.getLogger(LockWaiters.class);

	/** The signal that asks a waiting thread to queue again. */
	static final long REQUEUE = -1;

	/** The signal that tells a waiting thread its lock service stopped: leave the queue and fail. */
	static final long STOPPED = -2;

	private final String instance;

	private final StrayGrants strayGrants;

	private final Map<String, Waiter> bySequence = new ConcurrentHashMap<>();

	/** When this instance last renewed each wait queue its waiters are in (heartbeats run on one thread). */
	private final Map<String, Long> queueRenewedAtNanos = new HashMap<>();

	LockWaiters(String instance, StrayGrants strayGrants) {
		this.instance = instance;
		this.strayGrants = strayGrants;
	}

	/** An attempt about to be sent; {@code entry} is empty for a single attempt, which never queues. */
	Waiter register(LockKeys keys, String owner, String sequence, String entry) {
		Waiter waiter = new Waiter(keys, owner, entry);
		this.bySequence.put(sequence, waiter);
		return waiter;
	}

	/** The waiters Redis has queued and that still wait, for monitoring. */
	java.util.List<Waiter> waiting() {
		return this.bySequence.values().stream().filter(Waiter::isWaiting).toList();
	}

	void remove(String sequence, Waiter waiter) {
		waiter.gone = true;
		this.bySequence.remove(sequence, waiter);
	}

	/** The service stops: every waiting thread is told so ({@link #STOPPED}), now or as soon as it waits. */
	void stopAll() {
		this.bySequence.values().forEach((waiter) -> waiter.signal.complete(STOPPED));
	}

	/** Whether no attempt is under way. */
	boolean isEmpty() {
		return this.bySequence.isEmpty();
	}

	/** A wake-up: '{@code <sequence>:<token>:<lock key>}'. */
	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		String[] parts = new String(message.getBody(), StandardCharsets.UTF_8).split(":", 3);
		if (parts.length != 3) {
			logger.warn("Ignoring malformed Lockstep wake-up '{}'",
					LogText.of(new String(message.getBody(), StandardCharsets.UTF_8)));
			return;
		}
		long token = Long.parseLong(parts[1]);
		Waiter waiter = this.bySequence.get(parts[0]);
		if (waiter != null && waiter.keys.lock().equals(parts[2])) {
			waiter.signal.complete(token);
		}
		else {
			this.strayGrants.handedToNobody(parts[2], this.instance + ":" + parts[0], token);
		}
	}

	/**
	 * Visits every lock this instance has waited for during a whole interval; see heartbeat.lua. A
	 * lock whose lease ends before the next heartbeat is visited again just after it ends, so a dead
	 * holder's lock is taken over within its lease plus one round trip.
	 */
	void heartbeat(LockScripts scripts, long livenessMillis, long queueTtlMillis, ScheduledExecutorService timer,
			long intervalMillis) {
		Map<String, List<Waiter>> byLock = new HashMap<>();
		Map<String, LockKeys> shortWaitsOnly = new HashMap<>();
		long longEnough = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(intervalMillis);
		for (Waiter waiter : this.bySequence.values()) {
			// a short wait needs no heartbeat, but its queue must not expire under it (steady contention with short
			// waits never empties it); a waiter whose attempt took the lock directly, or has not been answered yet,
			// is not in the queue
			if (waiter.isWaiting() && waiter.queuedAtNanos - longEnough <= 0) {
				byLock.computeIfAbsent(waiter.keys.lock(), (lock) -> new ArrayList<>()).add(waiter);
			}
			else if (waiter.isWaiting()) {
				shortWaitsOnly.put(waiter.keys.lock(), waiter.keys);
			}
		}
		long now = System.nanoTime();
		for (List<Waiter> waiters : byLock.values()) {
			visit(waiters, scripts, livenessMillis, queueTtlMillis, timer, intervalMillis);
			this.queueRenewedAtNanos.put(waiters.get(0).keys.lock(), now);
		}
		// renewed at most once in half its time-to-live, so that a hot lock's hand-offs pay next to nothing for it
		shortWaitsOnly.keySet().removeAll(byLock.keySet());
		long halfTtl = TimeUnit.MILLISECONDS.toNanos(queueTtlMillis / 2);
		shortWaitsOnly.forEach((lock, keys) -> {
			Long renewed = this.queueRenewedAtNanos.get(lock);
			if (renewed == null || now - renewed >= halfTtl) {
				this.queueRenewedAtNanos.put(lock, now);
				scripts.touchQueue(keys, queueTtlMillis).whenComplete((reply, error) -> {
					if (error != null) {
						logger.debug("Keeping the wait queue of lock '{}' failed", LogText.of(keys.key()), error);
					}
				});
			}
		});
		// kept through ticks without a waiter here, so that such gaps do not renew it sooner
		this.queueRenewedAtNanos.values().removeIf((renewed) -> now - renewed >= 2 * halfTtl);
	}

	private void visit(List<Waiter> candidates, LockScripts scripts, long livenessMillis, long queueTtlMillis,
			ScheduledExecutorService timer, long intervalMillis) {
		List<Waiter> waiters = candidates.stream().filter(Waiter::isWaiting).toList();
		if (waiters.isEmpty()) {
			return;
		}
		LockKeys keys = waiters.get(0).keys;
		List<String> entries = waiters.stream().map((waiter) -> waiter.entry).toList();
		scripts.heartbeat(keys, livenessMillis, queueTtlMillis, entries).whenComplete((reply, error) -> {
			if (error != null) {
				logger.debug("Heartbeat for lock '{}' failed", LogText.of(keys.key()), error);
				return;
			}
			long ttl = (Long) reply.get(1);
			if (keys.isPermits()) {
				boolean waitingOn = visitedPermits(keys, waiters, reply);
				if (waitingOn && ttl >= 0 && ttl < intervalMillis) {
					revisit(waiters, scripts, livenessMillis, queueTtlMillis, timer, intervalMillis, ttl);
				}
				return;
			}
			byte[] value = (byte[]) reply.get(0);
			String holder = (value != null) ? new String(value, StandardCharsets.UTF_8) : null;
			// the holder first: an entry that is gone because it was granted is not asked to queue again
			boolean ours = holder != null && wakeIfHolder(keys, holder);
			for (Object missing : reply.subList(2, reply.size())) {
				String entry = new String((byte[]) missing, StandardCharsets.UTF_8);
				waiters.stream().filter((waiter) -> waiter.entry.equals(entry)).forEach((waiter) -> waiter.signal.complete(REQUEUE));
			}
			if (holder != null && !ours && ttl >= 0 && ttl < intervalMillis) {
				revisit(waiters, scripts, livenessMillis, queueTtlMillis, timer, intervalMillis, ttl);
			}
		});
	}

	private void revisit(List<Waiter> waiters, LockScripts scripts, long livenessMillis, long queueTtlMillis,
			ScheduledExecutorService timer, long intervalMillis, long ttl) {
		if (!timer.isShutdown()) {
			try {
				timer.schedule(() -> visit(waiters, scripts, livenessMillis, queueTtlMillis, timer, intervalMillis),
						ttl + 2, TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				// stopping
			}
		}
	}

	/**
	 * A permit heartbeat's reply: each entry of this instance no longer queued, with the token its
	 * owner holds (a lost wake-up: the waiter takes it, or passes it on when gone) or 0 (the waiter
	 * queues again). True while some waiter visited still waits.
	 */
	private boolean visitedPermits(LockKeys keys, List<Waiter> waiters, List<@Nullable Object> reply) {
		for (int i = 2; i + 1 < reply.size(); i += 2) {
			String entry = new String((byte[]) reply.get(i), StandardCharsets.UTF_8);
			long token = (Long) reply.get(i + 1);
			String[] parts = entry.split(":");
			Waiter waiter = this.bySequence.get(parts[1]);
			if (waiter != null && waiter.entry.equals(entry)) {
				waiter.signal.complete((token > 0) ? token : REQUEUE);
			}
			else if (token > 0) {
				this.strayGrants.handedToNobody(keys.lock(), parts[0] + ":" + parts[1], token);
			}
		}
		return waiters.stream().anyMatch(Waiter::isWaiting);
	}

	/**
	 * Completes this instance's waiter that holds the lock now (its wake-up was lost), or passes on
	 * a lock handed to an owner of this instance that no longer waits. True if the holder is ours.
	 */
	private boolean wakeIfHolder(LockKeys keys, String holderValue) {
		int tokenStart = holderValue.lastIndexOf(':');
		String owner = holderValue.substring(0, tokenStart);
		if (!owner.startsWith(this.instance + ":")) {
			return false;
		}
		long token = Long.parseLong(holderValue.substring(tokenStart + 1));
		Waiter waiter = this.bySequence.get(owner.substring(this.instance.length() + 1));
		if (waiter != null && waiter.keys.lock().equals(keys.lock())) {
			waiter.signal.complete(token);
		}
		else {
			this.strayGrants.handedToNobody(keys.lock(), owner, token);
		}
		return true;
	}

	/** Where a lock handed to an owner of this instance that no longer waits goes. */
	interface StrayGrants {

		void handedToNobody(String lockKey, String owner, long fencingToken);

	}

	/** One thread waiting in one lock's queue. */
	static final class Waiter {

		private final LockKeys keys;

		private final String owner;

		private final String entry;

		/** Completes with the fencing token once the lock is handed over, {@link #REQUEUE} or {@link #STOPPED}. */
		private final CompletableFuture<Long> signal = new CompletableFuture<>();

		private volatile long queuedAtNanos;

		private volatile boolean gone;

		private Waiter(LockKeys keys, String owner, String entry) {
			this.keys = keys;
			this.owner = owner;
			this.entry = entry;
		}

		LockKeys keys() {
			return this.keys;
		}

		String owner() {
			return this.owner;
		}

		String entry() {
			return this.entry;
		}

		long queuedAtNanos() {
			return this.queuedAtNanos;
		}

		/** Completes with the fencing token once the lock is handed over, or with {@link #REQUEUE}. */
		CompletableFuture<Long> signal() {
			return this.signal;
		}

		/** Redis answered that this waiter joined the queue. */
		void queued() {
			this.queuedAtNanos = System.nanoTime() | 1;
		}

		boolean isWaiting() {
			return !this.gone && this.queuedAtNanos != 0 && !this.signal.isDone();
		}

		/** The token once the lock is handed over, {@link #REQUEUE}, {@link #STOPPED}, or null when {@code nanos} pass first. */
		@Nullable Long await(long nanos) throws InterruptedException {
			try {
				return this.signal.get(nanos, TimeUnit.NANOSECONDS);
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
