package dev.lockstep.internal;

import java.time.Duration;

/**
 * Durations the way the properties and annotations take them ({@code 500ms}, {@code 5s},
 * {@code 10m}), for messages. Internal to Lockstep.
 */
public final class DurationText {

	private DurationText() {
	}

	/** The duration in the largest unit that represents it exactly. */
	public static String of(Duration duration) {
		long millis = duration.toMillis();
		if (millis != 0 && millis % 86_400_000 == 0) {
			return millis / 86_400_000 + "d";
		}
		if (millis != 0 && millis % 3_600_000 == 0) {
			return millis / 3_600_000 + "h";
		}
		if (millis != 0 && millis % 60_000 == 0) {
			return millis / 60_000 + "m";
		}
		if (millis % 1000 == 0) {
			return millis / 1000 + "s";
		}
		return millis + "ms";
	}

}
