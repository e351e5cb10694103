package dev.lockstep.sample.push;

import java.time.Duration;
import java.time.ZonedDateTime;

import org.springframework.scheduling.support.CronExpression;

/**
 * When a cron expression fires. The scheduler does not tell a job which firing it runs for, so
 * the job takes the latest firing at or before the moment it starts; a run delayed past the
 * next firing would be counted as that one.
 */
final class CronFirings {

	private static final Duration LONGEST_LOOK_BACK = Duration.ofDays(5 * 366);

	private final CronExpression cron;

	CronFirings(String expression) {
		this.cron = CronExpression.parse(expression);
	}

	/** The latest firing at or before {@code now}. */
	ZonedDateTime latestAtOrBefore(ZonedDateTime now) {
		// CronExpression only looks forward: step back until a firing lies between there and now.
		for (Duration lookBack = Duration.ofSeconds(1); lookBack.compareTo(LONGEST_LOOK_BACK) <= 0; lookBack = lookBack.multipliedBy(2)) {
			ZonedDateTime firing = this.cron.next(now.minus(lookBack));
			if (firing != null && !firing.isAfter(now)) {
				for (ZonedDateTime next = this.cron.next(firing); next != null && !next.isAfter(now); next = this.cron.next(next)) {
					firing = next;
				}
				return firing;
			}
		}
		throw new IllegalStateException("Cron expression '" + this.cron + "' did not fire in the " + LONGEST_LOOK_BACK.toDays()
				+ " days before " + now);
	}

}
