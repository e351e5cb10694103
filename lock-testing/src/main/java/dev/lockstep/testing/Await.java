package dev.lockstep.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Bounded waits for tests: a condition polled until it holds, or a failure naming what did not happen. */
public final class Await {

	private Await() {
	}

	/**
	 * Polls {@code condition} every 20ms until it holds.
	 * @throws AssertionError naming {@code what} if it does not hold within {@code timeout}
	 */
	public static void until(String what, Duration timeout, BooleanSupplier condition) {
		until(what, timeout, condition, () -> "");
	}

	/**
	 * Polls {@code condition} every 20ms until it holds.
	 * @throws AssertionError naming {@code what}, followed by {@code details} (the processes'
	 * output, say), if it does not hold within {@code timeout}
	 */
	public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> details) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				String more = details.get();
				throw new AssertionError("Not within " + timeout + ": " + what + (more.isEmpty() ? "" : "\n" + more));
			}
			sleep(20);
		}
	}

	/** Sleeps {@code millis}; an interruption is kept and fails the test. */
	public static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
