package dev.lockstep.lock;

import org.jspecify.annotations.Nullable;

import dev.lockstep.LockHandle;
import dev.lockstep.internal.ThreadHolds;

/** Reentrancy: the current thread's live hold on a lock of one engine, among the thread's holds ({@link ThreadHolds}). */
final class ThreadLocks {

	private ThreadLocks() {
	}

	/** The current thread's live hold on lock {@code key} through {@code engine}, if any (permits are not reentered). */
	static @Nullable LockOwnership heldBy(LockEngine engine, String key) {
		LockHandle found = ThreadHolds.find((handle) -> handle instanceof LockHold hold && hold.engine() == engine
				&& hold.isHeld() && hold.key().equals(key) && !hold.lock().keys().isPermits());
		return (found != null) ? ((LockHold) found).lock() : null;
	}

}
