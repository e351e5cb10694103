package dev.lockstep.job;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

import dev.lockstep.GuardedJob;

/**
 * How long after its slot a cron firing may still start, by Redis's clock: twice the skew tolerance
 * and a period. A firing reaches Redis at most the skew tolerance late, its takeover comes the skew
 * tolerance after that, and it has a period in which to find the guard free. Past it the slot never
 * runs, whatever Redis remembers, because Redis may have lost the records that say it ran (a restart
 * without persistence). So an outage costs firings and never runs one twice.
 */
final class SlotWindow {

	/** The least period counted, for a job without a cron expression or with a tolerance of nothing. */
	private static final long LEAST_PERIOD_MILLIS = 1000;

	private final Duration skewTolerance;

	/** Each job's cron expression, parsed once (the key is the expression and its zone). */
	private final Map<String, CronExpression> crons = new ConcurrentHashMap<>();

	SlotWindow(Duration skewTolerance) {
		this.skewTolerance = skewTolerance;
	}

	Duration skewTolerance() {
		return this.skewTolerance;
	}

	/** The window of {@code slot} in ms. */
	long millis(GuardedJob job, long slot) {
		return 2 * this.skewTolerance.toMillis() + periodMillis(job, slot);
	}

	/** The latest time (epoch ms, Redis's clock) at which {@code slot} may still start. */
	long latestStart(GuardedJob job, long slot) {
		return slot + millis(job, slot);
	}

	/**
	 * The time from {@code slot} to the job's next slot. A job whose firings carry slots without a
	 * cron expression (given to {@code JobGuardExecutor} by hand) counts the skew tolerance as its
	 * period. Either way at least a second.
	 */
	private long periodMillis(GuardedJob job, long slot) {
		long period = this.skewTolerance.toMillis();
		CronExpression cron = cron(job);
		if (cron != null) {
			ZoneId zone = (job.zone() != null) ? ZoneId.of(job.zone()) : ZoneId.systemDefault();
			ZonedDateTime next = cron.next(ZonedDateTime.ofInstant(Instant.ofEpochMilli(slot), zone));
			if (next != null) {
				period = next.toInstant().toEpochMilli() - slot;
			}
		}
		return Math.max(LEAST_PERIOD_MILLIS, period);
	}

	private @Nullable CronExpression cron(GuardedJob job) {
		String expression = job.cron();
		if (expression == null) {
			return null;
		}
		// an expression that does not parse is not kept (computeIfAbsent keeps no null), and parsed again
		return this.crons.computeIfAbsent(expression + " " + job.zone(), (key) -> parsed(expression));
	}

	private static @Nullable CronExpression parsed(String expression) {
		try {
			return CronExpression.parse(expression);
		}
		catch (IllegalArgumentException ex) {
			// the scheduler parsed it already; a job given by hand with an expression it never used counts the tolerance
			return null;
		}
	}

}
