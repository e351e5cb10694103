package dev.lockstep.internal;

import java.time.Duration;

/**
 * The rules for Lockstep's durations, in one place for the services, the Spring Boot properties
 * and the annotations alike: each check names the thing at fault as its caller calls it (a
 * property, an annotation attribute, or a setter's subject) and says the value it got. Internal
 * to Lockstep.
 */
public final class DurationRules {

	/**
	 * The shortest lease that is renewed or held for a whole run: a lock's default lease, a queue
	 * task's lease and a job's {@code lockAtMostFor} (renewals come every third of it, and each is
	 * one Redis round trip).
	 */
	public static final Duration SHORTEST_RENEWED_LEASE = Duration.ofSeconds(1);

	/** The shortest heartbeat of the lock service. */
	public static final Duration SHORTEST_HEARTBEAT = Duration.ofMillis(10);

	/** The shortest deduplication window of a queue. */
	public static final Duration SHORTEST_DEDUPLICATION_WINDOW = Duration.ofSeconds(1);

	/** The longest wait or lease counted as given: a century, for ever to a lock; longer ones are cut to it. */
	public static final Duration FOR_EVER = Duration.ofDays(36_500);

	private DurationRules() {
	}

	/**
	 * {@code value}, or {@link #FOR_EVER} when longer: past about 292 years a duration no longer fits
	 * the nanoseconds of the JVM's monotonic clock.
	 */
	public static Duration capped(Duration value) {
		return (value.compareTo(FOR_EVER) > 0) ? FOR_EVER : value;
	}

	/** A lease renewed while its holder works (see {@link #SHORTEST_RENEWED_LEASE}). */
	public static Duration renewedLease(String name, Duration value) {
		return atLeast(name, value, SHORTEST_RENEWED_LEASE);
	}

	/**
	 * A wait, a timeout given to shutdown, a backoff or a tolerance: zero means "not at all".
	 * @return {@code value}
	 */
	public static Duration notNegative(String name, Duration value) {
		if (value == null || value.isNegative()) {
			throw new IllegalArgumentException(name + " must not be negative, was " + text(value));
		}
		return value;
	}

	/**
	 * A one-call lease (not renewed) or a command timeout: at least a millisecond.
	 * @return {@code value}
	 */
	public static Duration positive(String name, Duration value) {
		if (value == null || value.toMillis() <= 0) {
			throw new IllegalArgumentException(name + " must be at least 1ms, was " + text(value));
		}
		return value;
	}

	/**
	 * @param name what {@code value} is, for the message (e.g. {@code lockstep.lock.lease-time})
	 * @return {@code value}
	 */
	public static Duration atLeast(String name, Duration value, Duration minimum) {
		if (value == null || value.compareTo(minimum) < 0) {
			throw new IllegalArgumentException(name + " must be at least " + DurationText.of(minimum) + ", was " + text(value));
		}
		return value;
	}

	/**
	 * A heartbeat short enough for the watchdog, which renews a lease every third of it, on a
	 * heartbeat: the message names both settings, their values and what to set instead.
	 * @throws IllegalArgumentException when {@code heartbeat} is a third of {@code lease} or more
	 */
	public static void heartbeatUnderAThirdOfLease(String heartbeatName, Duration heartbeat, String leaseName,
			Duration lease) {
		if (heartbeat.multipliedBy(3).compareTo(lease) >= 0) {
			throw new IllegalArgumentException(heartbeatName + " (" + DurationText.of(heartbeat) + ") must be under a "
					+ "third of " + leaseName + " (" + DurationText.of(lease) + "): the watchdog renews a lease every "
					+ "third of it, on a heartbeat; set " + heartbeatName + " below " + DurationText.of(lease.dividedBy(3))
					+ " or " + leaseName + " above " + DurationText.of(heartbeat.multipliedBy(3)));
		}
	}

	private static String text(Duration value) {
		return (value != null) ? DurationText.of(value) : "null";
	}

}
