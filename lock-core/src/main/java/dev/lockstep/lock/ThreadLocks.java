package dev.lockstep.lock;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.lockstep.LockHandle;

/**
 * The holds each thread took and has not closed, newest last: the basis of reentrancy and of
 * {@link dev.lockstep.LockContext}. Internal to Lockstep; public only for its other packages.
 */
public final class ThreadLocks {

	private static final ThreadLocal<ArrayDeque<LockHold>> HOLDS = new ThreadLocal<>();

	private ThreadLocks() {
	}

	/** The newest hold of the current thread that still holds its lock. */
	public static Optional<LockHandle> current() {
		ArrayDeque<LockHold> holds = HOLDS.get();
		if (holds != null) {
			Iterator<LockHold> newestFirst = holds.descendingIterator();
			while (newestFirst.hasNext()) {
				LockHold hold = newestFirst.next();
				if (hold.isHeld()) {
					return Optional.of(hold);
				}
			}
		}
		return Optional.empty();
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
	}

	/** The current thread's live hold on {@code key} through {@code engine}, if any. */
	static @Nullable HeldLock heldBy(LockEngine engine, String key) {
		ArrayDeque<LockHold> holds = HOLDS.get();
		if (holds != null) {
			for (LockHold hold : holds) {
				if (hold.engine() == engine && hold.isHeld() && hold.key().equals(key)) {
					return hold.lock();
				}
			}
		}
		return null;
	}

	static void push(LockHold hold) {
		ArrayDeque<LockHold> holds = HOLDS.get();
		if (holds == null) {
			holds = new ArrayDeque<>();
			HOLDS.set(holds);
		}
		holds.removeIf(LockHold::isClosed);
		holds.addLast(hold);
	}

	static void remove(LockHold hold) {
		if (hold.thread() != Thread.currentThread()) {
			return;
		}
		ArrayDeque<LockHold> holds = HOLDS.get();
		if (holds != null) {
			holds.removeLastOccurrence(hold);
			holds.removeIf(LockHold::isClosed);
			if (holds.isEmpty()) {
				HOLDS.remove();
			}
		}
	}

}
