package dev.lockstep.lock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.LockException;
import dev.lockstep.LockHandle;
import dev.lockstep.LockLostEvent;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.LogText;
import dev.lockstep.internal.ThreadHolds;

/**
 * The locks this instance holds, from the acquisition that took them to their release: made
 * usable (renewed by the watchdog, told to the listeners, recorded as the thread's), released with
 * hand-over, their lease changed or kept on close, and reported lost or renewed late. Part of a
 * {@link LockEngine}, whose connection, scripts and listener it uses.
 */
final class ActiveLocks {

	private static final Logger logger = LoggerFactory.getLogger(ActiveLocks.class);

	/** By owner id. */
	final Map<String, LockOwnership> active = new ConcurrentHashMap<>();

	/**
	 * Owners of locks closed keeping them ({@link #exitKeeping}), to when ({@link System#nanoTime()}):
	 * until then, a waiter's heartbeat of this instance that finds one holding its lock does not
	 * take it for a grant to nobody and pass it on.
	 */
	private final Map<String, Long> kept = new ConcurrentHashMap<>();

	private final LockEngine engine;

	private final LeaseWatchdog watchdog;

	ActiveLocks(LockEngine engine, Duration commandTimeout, String redis) {
		this.engine = engine;
		this.watchdog = new LeaseWatchdog(engine.scripts, this::lost, this::renewedLate, commandTimeout, redis);
	}

	LeaseWatchdog watchdog() {
		return this.watchdog;
	}

	/** Makes an acquisition usable. */
	LockHandle activate(LockOwnership lock, Duration waited) {
		return activate(lock, waited, true);
	}

	LockHandle activate(LockOwnership lock, Duration waited, boolean onThread) {
		this.active.put(lock.owner(), lock);
		if (lock.renewedByWatchdog()) {
			this.watchdog.watch(lock);
		}
		LockHold hold = onThread ? hold(lock) : new LockHold(this.engine, lock);
		try {
			this.engine.listener.acquired(lock.keys().key(), lock.fencingToken(), waited);
		}
		catch (Throwable ex) {
			// not even a listener's Error may leave a lock held, and renewed, with no handle to close it
			hold.close();
			throw ex;
		}
		return hold;
	}

	LockHold hold(LockOwnership lock) {
		LockHold hold = new LockHold(this.engine, lock);
		ThreadHolds.push(hold);
		return hold;
	}

	/** The last hold on {@code lock} was closed. */
	void exit(LockOwnership lock) {
		if (!lock.exit()) {
			return;
		}
		// A lock already reported lost is released too: a renewal in flight may have revived it.
		boolean wasHeld = lock.markReleased();
		this.active.remove(lock.owner(), lock);
		this.watchdog.unwatch(lock);
		this.engine.releases.send(lock, wasHeld);
		Duration held = Duration.ofNanos(System.nanoTime() - lock.acquiredAtNanos());
		this.engine.listener.released(lock.keys().key(), held);
	}

	/**
	 * Sets a held lock's lease to {@code leaseTime} from now, owner and token checked: true when
	 * Redis still had it (it counts as held until the call's send time plus the new lease), false
	 * when it was gone (reported lost).
	 */
	boolean changeLease(LockOwnership lock, Duration leaseTime) {
		if (!lock.isActive()) {
			return false;
		}
		if (setLease(lock, leaseTime)) {
			return true;
		}
		lost(lock, "Redis no longer had it when its lease was to be changed to " + DurationText.of(leaseTime));
		return false;
	}

	private boolean setLease(LockOwnership lock, Duration leaseTime) {
		long sent = System.nanoTime();
		long changed = this.engine.replies.await(
				this.engine.scripts.confirm(lock.keys(), lock.owner(), lock.fencingToken(), LockEngine.millis(leaseTime.toNanos())),
				lock.keys(), "changing the lease of", null);
		if (changed == 1) {
			lock.confirm(sent, leaseTime.toNanos());
			return true;
		}
		return false;
	}

	/**
	 * The last hold on {@code lock} was closed keeping the lock for {@code keepFor} (at most
	 * {@link dev.lockstep.internal.DurationRules#FOR_EVER}): its lease is set
	 * to that (owner and token checked) and it is forgotten here without a release. If Redis cannot
	 * be reached, it frees itself when its current lease ends.
	 */
	void exitKeeping(LockOwnership lock, Duration keepFor) {
		if (!lock.exit()) {
			return;
		}
		// released here first, so that the watchdog no longer renews it to its full lease
		boolean wasHeld = lock.markReleased();
		long now = System.nanoTime();
		this.kept.values().removeIf((until) -> until - now <= 0);
		this.kept.put(lock.owner(), now + keepFor.toNanos());
		this.active.remove(lock.owner(), lock);
		this.watchdog.unwatch(lock);
		if (wasHeld) {
			try {
				if (!setLease(lock, keepFor)) {
					logger.debug("Lock '{}' was already gone from Redis when it was closed keeping it for {}",
							LogText.of(lock.keys().key()), DurationText.of(keepFor));
				}
			}
			catch (LockException ex) {
				logger.warn("Could not keep lock '{}' for {} after it was closed; it frees itself when its current "
						+ "lease ends: {}", LogText.of(lock.keys().key()), DurationText.of(keepFor), ex.getMessage());
			}
		}
		this.engine.listener.released(lock.keys().key(), Duration.ofNanos(System.nanoTime() - lock.acquiredAtNanos()));
	}

	void lost(LockOwnership lock, String reason) {
		if (lock.markLost()) {
			this.active.remove(lock.owner(), lock);
			logger.error("Lost lock '{}' (fencing token {}): {}", LogText.of(lock.keys().key()), lock.fencingToken(), reason);
			LockLostEvent event = new LockLostEvent(lock.keys().key(), lock.fencingToken(), reason);
			this.engine.listener.lost(event);
		}
	}

	private void renewedLate(LockOwnership lock, long leaseLeftNanos) {
		Duration left = Duration.ofNanos(leaseLeftNanos);
		logger.warn("Lock '{}' was renewed with only {} of its {} lease left: Redis or the network is slow, or this JVM "
				+ "paused; a little later and it would have been lost", LogText.of(lock.keys().key()), DurationText.of(left),
				DurationText.of(Duration.ofNanos(lock.leaseNanos())));
		this.engine.listener.renewedLate(lock.keys().key(), left);
	}

	/**
	 * A lock was handed to a waiter of this instance that had already gone: pass it on (unless it is
	 * a lock closed keeping it, still kept).
	 */
	void releaseStrayGrant(String lockKey, String owner, long fencingToken) {
		Long keptUntil = this.kept.get(owner);
		if (keptUntil != null && keptUntil - System.nanoTime() > 0) {
			return;
		}
		if (!this.active.containsKey(owner)) {
			this.engine.scripts.release(LockKeys.ofRedisKey(this.engine.keyPrefix, lockKey), owner, fencingToken);
		}
	}

}
