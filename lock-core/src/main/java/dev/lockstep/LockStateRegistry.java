package dev.lockstep;

import java.util.List;

/**
 * The locks and permits of this instance, and any key as Redis holds it now: the monitoring view of
 * a {@link LockService}, beside {@link JobGuardRegistry} for jobs and {@link SerialQueueRegistry}
 * for queues. Lockstep's own lock service implements it; the actuator endpoint and the console read
 * locks through it. (Named for lock state so that it does not read as Spring Integration's
 * {@code LockRegistry}, which hands out locks; this one only shows them.)
 */
public interface LockStateRegistry {

	/** The id this instance writes into lock owners, as {@link LockSnapshot.KeyState#holderInstance()} shows it. */
	String instanceId();

	/** The locks this instance holds now, oldest first. */
	List<LockSnapshot.Held> heldLocks();

	/**
	 * The calls of this instance waiting in a lock's queue now, longest waiting first, with their
	 * place in the queue.
	 */
	List<LockSnapshot.Waiting> waitingCalls();

	/**
	 * {@code key} as Redis holds it now, whichever instance holds it: the holder, its token and
	 * lease left, and the waiters in order.
	 * @throws LockUnavailableException when Redis cannot be read
	 */
	LockSnapshot.KeyState keyState(String key);

	/**
	 * How many hold a permit of {@code key} now, whichever instance, and how many wait.
	 * @throws LockUnavailableException when Redis cannot be read
	 */
	LockSnapshot.PermitState permitState(String key);

	/**
	 * Releases {@code key} on behalf of its holder, for an operator freeing a lock whose instance
	 * stopped without releasing it (the caller confirms first that the instance is gone): only if
	 * Redis still shows it held by {@code holderInstance} (as {@link LockSnapshot.KeyState#holderInstance()}
	 * shows it) under {@code fencingToken}. The lock goes to its next waiter, as the holder's own
	 * release would hand it on.
	 * @return true if it was released, false if it is no longer held by that holder under that token
	 * @throws LockUnavailableException when Redis cannot be reached
	 * @throws UnsupportedOperationException unless the implementation can release it (Lockstep's own
	 * lock service can)
	 */
	default boolean releaseHeldBy(String key, String holderInstance, long fencingToken) {
		throw new UnsupportedOperationException(getClass().getName()
				+ " does not implement LockStateRegistry.releaseHeldBy(key, holderInstance, fencingToken): lock '" + key
				+ "' was not released");
	}

}
