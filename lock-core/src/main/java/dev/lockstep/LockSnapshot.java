package dev.lockstep;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a lock service can show an operator: the locks and permits it holds and the calls waiting, and any
 * key's state read from Redis. Public for monitoring (the actuator endpoint reads it); values are
 * a snapshot, stale as soon as they are read.
 */
public final class LockSnapshot {

	private LockSnapshot() {
	}

	/**
	 * A lock this instance holds.
	 * @param key the lock key ({@code name:value} for annotated methods)
	 * @param fencingToken the acquisition's token
	 * @param thread the name of the thread that acquired it
	 * @param heldSince when it was acquired
	 * @param leaseLeft how long the lease Redis last confirmed has still to run, by this instance's clock
	 * @param renewals how many times the watchdog renewed it
	 * @param watchdog whether the watchdog renews it (false for an explicit lease)
	 * @param permits 0 for a lock; for a permit, how many permits of the key its caller allows
	 */
	public record Held(String key, long fencingToken, String thread, Instant heldSince, Duration leaseLeft, int renewals,
			boolean watchdog, int permits) {

		/** A lock held (not a permit). */
		public Held(String key, long fencingToken, String thread, Instant heldSince, Duration leaseLeft, int renewals,
				boolean watchdog) {
			this(key, fencingToken, thread, heldSince, leaseLeft, renewals, watchdog, 0);
		}

	}

	/**
	 * A call of this instance waiting in a lock's queue.
	 * @param key the lock key
	 * @param owner the waiting queueing's owner id ({@code <instance>:<sequence>})
	 * @param waitingSince when Redis queued it
	 * @param position its place in the queue (1 is next), or null when it is not (or no longer) in the queue's first thousand
	 */
	public record Waiting(String key, String owner, Instant waitingSince, @Nullable Integer position) {
	}

	/**
	 * One key as Redis holds it now, whoever holds it.
	 * @param key the lock key
	 * @param holderInstance the instance id of the holder, or null when nobody holds it
	 * @param fencingToken the holder's token, or null
	 * @param leaseLeft how long the holder's lease has still to run by Redis's clock, or null
	 * @param waiters the waiting queueings in order ({@code <instance>:<sequence>}), at most the first 100
	 * @param waitersInAll how many are waiting in all
	 */
	public record KeyState(String key, @Nullable String holderInstance, @Nullable Long fencingToken,
			@Nullable Duration leaseLeft, List<String> waiters, long waitersInAll) {
	}

	/**
	 * One key's permits as Redis holds them now, whoever holds them.
	 * @param key the key
	 * @param held how many permits are held (leases still running by Redis's clock)
	 * @param waiting how many calls wait for one
	 */
	public record PermitState(String key, long held, long waiting) {
	}

}
