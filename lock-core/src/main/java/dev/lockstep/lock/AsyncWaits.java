package dev.lockstep.lock;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstep.LockUnavailableException;
import dev.lockstep.internal.LogText;

/**
 * One engine's acquisitions without a thread ({@link AsyncAcquisition}) still under way: when the
 * engine stops, each ends with {@link LockUnavailableException} rather than wait for a wake-up or
 * a timer that will never come (a blocking caller's own timed wait ends by itself).
 */
final class AsyncWaits {

	private final Set<Pending> pending = ConcurrentHashMap.newKeySet();

	private volatile boolean stopped;

	/**
	 * Tracks {@code result}, the acquisition of lock {@code key}, until it completes; returns it.
	 * One tracked as the engine stops (it passed the engine's check just before) fails at once.
	 */
	<T> CompletableFuture<T> track(String key, CompletableFuture<T> result) {
		Pending entry = new Pending(key, result);
		this.pending.add(entry);
		result.whenComplete((value, error) -> this.pending.remove(entry));
		if (this.stopped) {
			fail(entry);
		}
		return result;
	}

	/** The engine stops: every acquisition still under way fails. */
	void stopped() {
		this.stopped = true;
		for (Pending entry : List.copyOf(this.pending)) {
			fail(entry);
		}
	}

	private static void fail(Pending entry) {
		entry.result().completeExceptionally(new LockUnavailableException(
				"Lock service stopped while acquiring lock '" + LogText.of(entry.key()) + "'", null));
	}

	private record Pending(String key, CompletableFuture<?> result) {
	}

}
