package dev.lockstep.lock;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.lockstep.LockHandle;

/**
 * The holds each thread took and has not closed, newest last: the basis of reentrancy and of
 * {@link dev.lockstep.LockContext}. Lockstep's own lock service records its holds here; the
 * annotations record the handles of an application's own {@link dev.lockstep.LockService} too
 * ({@link #enter(LockHandle)}), so that {@code LockContext} works whichever service locks.
 * Internal to Lockstep; public only for its other packages.
 */
public final class ThreadLocks {

	private static final ThreadLocal<ArrayDeque<LockHandle>> HOLDS = new ThreadLocal<>();

	private ThreadLocks() {
	}

	/** The newest hold of the current thread that still holds its lock. */
	public static Optional<LockHandle> current() {
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds != null) {
			Iterator<LockHandle> newestFirst = holds.descendingIterator();
			while (newestFirst.hasNext()) {
				LockHandle hold = newestFirst.next();
				if (hold.isHeld()) {
					return Optional.of(hold);
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * Records {@code handle}, just acquired on this thread, unless it is already recorded (a
	 * Lockstep hold is): for the handles of an application's own lock service.
	 * @return whether it was recorded here, and so must be {@link #exit(LockHandle) exited}
	 */
	public static boolean enter(LockHandle handle) {
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds != null && holds.contains(handle)) {
			return false;
		}
		if (holds == null) {
			holds = new ArrayDeque<>();
			HOLDS.set(holds);
		}
		holds.addLast(handle);
		return true;
	}

	/** Forgets a handle recorded by {@link #enter(LockHandle)}, on the thread that entered it. */
	public static void exit(LockHandle handle) {
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds != null) {
			holds.removeLastOccurrence(handle);
			if (holds.isEmpty()) {
				HOLDS.remove();
			}
		}
	}

	/**
	 * Ends the current thread's claim on {@code handle} while the handle stays open: for a method
	 * whose result completes later, so that later calls on this thread wait for the lock instead
	 * of re-entering it.
	 */
	public static void detach(LockHandle handle) {
		if (handle instanceof LockHold hold) {
			remove(hold);
		}
		else {
			exit(handle);
		}
	}

	/** The current thread's live hold on lock {@code key} through {@code engine}, if any (permits are not reentered). */
	static @Nullable LockOwnership heldBy(LockEngine engine, String key) {
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds != null) {
			for (LockHandle handle : holds) {
				if (handle instanceof LockHold hold && hold.engine() == engine && hold.isHeld() && hold.key().equals(key)
						&& !hold.lock().keys().isPermits()) {
					return hold.lock();
				}
			}
		}
		return null;
	}

	static void push(LockHold hold) {
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds == null) {
			holds = new ArrayDeque<>();
			HOLDS.set(holds);
		}
		holds.removeIf(ThreadLocks::isClosedHold);
		holds.addLast(hold);
	}

	static void remove(LockHold hold) {
		if (hold.thread() != Thread.currentThread()) {
			return;
		}
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds != null) {
			holds.removeLastOccurrence(hold);
			holds.removeIf(ThreadLocks::isClosedHold);
			if (holds.isEmpty()) {
				HOLDS.remove();
			}
		}
	}

	private static boolean isClosedHold(LockHandle handle) {
		return handle instanceof LockHold hold && hold.isClosed();
	}

}
