package dev.lockstep.job;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.GuardedJob;
import dev.lockstep.internal.DurationText;

/**
 * Notices when this instance fires cron slots far from when Redis's clock says they are due.
 */
final class ClockSkewWarnings {

	private static final Logger logger = LoggerFactory.getLogger(ClockSkewWarnings.class);

	private static final Duration INTERVAL = Duration.ofMinutes(5);

	private final Duration tolerance;

	/** When each job last warned (nano time). */
	private final Map<String, Long> warned = new ConcurrentHashMap<>();

	ClockSkewWarnings(Duration tolerance) {
		this.tolerance = tolerance;
	}

	/**
	 * A firing of a cron slot reaches Redis about when the slot is due by Redis's clock. If it
	 * arrives more than the skew tolerance early or late, this instance's clock (or its scheduler)
	 * is off: slots may be skipped or left to the takeover, though never run twice. Says so, at
	 * most once per {@link #INTERVAL} per job.
	 */
	void check(GuardedJob job, long slot, long serverMillis) {
		long early = slot - serverMillis;
		if (Math.abs(early) <= this.tolerance.toMillis()) {
			return;
		}
		long now = System.nanoTime();
		Long last = this.warned.get(job.name());
		if (last != null && now - last < INTERVAL.toNanos()) {
			return;
		}
		this.warned.put(job.name(), now);
		String off = DurationText.of(Duration.ofMillis(Math.abs(early)));
		logger.warn("Job '{}' fired its slot {} {} {} by Redis's clock, more than lockstep.job-guard.skew-tolerance ({}): "
				+ "this instance's clock {}; its slots may be skipped or run late by another instance, never twice",
				job.name(), Instant.ofEpochMilli(slot), off, (early > 0) ? "early" : "late",
				DurationText.of(this.tolerance),
				(early > 0) ? "runs ahead" : "runs behind, or its scheduler is busy");
	}

}
