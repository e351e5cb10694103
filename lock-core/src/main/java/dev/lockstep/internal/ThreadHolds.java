package dev.lockstep.internal;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.lockstep.LockHandle;

/**
 * The holds each thread took and has not closed, newest last: the basis of reentrancy and of
 * {@link dev.lockstep.LockContext}. Lockstep's lock engine records its own holds here
 * ({@link #push}, {@link #remove}); the annotations record the handles of an application's own
 * {@link dev.lockstep.LockService} ({@link #enter}, {@link #exit}), so that {@code LockContext}
 * works whichever service locks; and an adapter whose lock outlives the call that took it
 * {@link #detach detaches} it. One place for the thread's holds, so that neither the API nor the
 * annotations reach into the engine.
 */
public final class ThreadHolds {

	private static final ThreadLocal<ArrayDeque<LockHandle>> HOLDS = new ThreadLocal<>();

	private ThreadHolds() {
	}

	/** A hold the lock engine records itself: tied to the thread that took it, closed once. */
	public interface EngineHold extends LockHandle {

		/** The thread that took the hold. */
		Thread thread();

		/** Whether the hold was closed (its lock may still be held through another hold). */
		boolean isClosed();

	}

	/**
	 * The innermost lock the current thread is inside of, as fencing needs it: its newest hold, held
	 * or lost, when it still holds some lock (else empty, as {@link #current()}). A lost one must
	 * refuse the write, never hand it the token of a lock taken around it, which is not comparable
	 * with the row's.
	 */
	public static Optional<LockHandle> innermost() {
		return current().map((held) -> HOLDS.get().getLast());
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

	/** The oldest hold of the current thread that {@code test} accepts, or null. */
	public static @Nullable LockHandle find(Predicate<LockHandle> test) {
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds != null) {
			for (LockHandle handle : holds) {
				if (test.test(handle)) {
					return handle;
				}
			}
		}
		return null;
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
		if (handle instanceof EngineHold hold) {
			remove(hold);
		}
		else {
			exit(handle);
		}
	}

	/** Records a hold the engine just made on the current thread (closed ones are forgotten on the way). */
	public static void push(EngineHold hold) {
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds == null) {
			holds = new ArrayDeque<>();
			HOLDS.set(holds);
		}
		holds.removeIf(ThreadHolds::isClosedHold);
		holds.addLast(hold);
	}

	/** Forgets an engine's hold, when closed or detached on the thread that took it (elsewhere: nothing). */
	public static void remove(EngineHold hold) {
		if (hold.thread() != Thread.currentThread()) {
			return;
		}
		ArrayDeque<LockHandle> holds = HOLDS.get();
		if (holds != null) {
			holds.removeLastOccurrence(hold);
			holds.removeIf(ThreadHolds::isClosedHold);
			if (holds.isEmpty()) {
				HOLDS.remove();
			}
		}
	}

	private static boolean isClosedHold(LockHandle handle) {
		return handle instanceof EngineHold hold && hold.isClosed();
	}

}
