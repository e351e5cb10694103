package dev.lockstep.job;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.util.StringUtils;

import dev.lockstep.GuardedJob;
import dev.lockstep.annotation.JobGuard;
import dev.lockstep.aop.AnnotatedMethods;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.MethodAttributes;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.internal.ReactiveTypes;

/**
 * Finds the guarded methods ({@link JobGuard}, or every {@link Scheduled} method when all are
 * guarded) and resolves each once: name, {@code ${...}} placeholders and limits, adding it to
 * the {@link GuardedJobs}. Two methods with one guard name, or bad limits, fail startup naming
 * the methods.
 */
record JobDefinitions(GuardedJobs found, Duration lockAtMostFor, Duration lockAtLeastFor, boolean guardAllScheduled)
		implements AnnotatedMethods.Resolver<GuardedJob> {

	private static final Logger logger = LoggerFactory.getLogger(JobDefinitions.class);

	/** Where a job's lockAtLeastFor comes from when it sets none. */
	private static final String DEFAULT_AT_LEAST = "lockstep.job-guard.lock-at-least-for";

	/** Where a job's lockAtMostFor comes from when it sets none. */
	private static final String DEFAULT_AT_MOST = "lockstep.job-guard.lock-at-most-for";

	JobDefinitions {
		DurationRules.renewedLease("The default lockAtMostFor", lockAtMostFor);
		DurationRules.notNegative("The default lockAtLeastFor", lockAtLeastFor);
	}

	@Override
	public @Nullable GuardedJob resolve(Method specific, Class<?> userClass, MethodAttributes attributes) {
		JobGuard guard = AnnotatedElementUtils.findMergedAnnotation(specific, JobGuard.class);
		boolean scheduled = AnnotatedElementUtils.hasAnnotation(specific, Scheduled.class)
				|| AnnotatedElementUtils.hasAnnotation(specific, Schedules.class);
		if (guard == null && !(this.guardAllScheduled && scheduled)) {
			return null;
		}
		String description = MethodAttributes.describe(specific);
		// guarded by the property alone, the method has no @JobGuard: say what guards it
		String source = (guard != null) ? "@JobGuard on " + description
				: "@Scheduled on " + description + " (guarded by lockstep.job-guard.guard-all-scheduled)";
		MethodAttributes.requireInterceptable(specific, source);
		// a suspend method is guarded only where Spring's proxies call it as a publisher: checked here, at startup
		ReactiveTypes.isSuspending(specific, source);
		if (specific.getReturnType().isPrimitive() && specific.getReturnType() != void.class) {
			throw new IllegalStateException(source + " cannot apply: a skipped firing returns null, which a method returning "
					+ specific.getReturnType() + " cannot; return void or an object type");
		}
		String name = (guard != null && StringUtils.hasText(guard.name())) ? attributes.name(source, guard.name())
				: userClass.getSimpleName() + "." + specific.getName();
		try {
			NamingRules.insideHashTag(source + ": guard name", name);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(ex.getMessage(), ex);
		}
		boolean ownAtMost = guard != null && StringUtils.hasText(guard.lockAtMostFor());
		boolean ownAtLeast = guard != null && StringUtils.hasText(guard.lockAtLeastFor());
		Duration atMost = ownAtMost
				? attributes.duration(source, "lockAtMostFor", guard.lockAtMostFor(), DurationRules::renewedLease)
				: this.lockAtMostFor;
		Duration atLeast = ownAtLeast
				? attributes.duration(source, "lockAtLeastFor", guard.lockAtLeastFor(), DurationRules::notNegative)
				: this.lockAtLeastFor;
		if (atLeast.compareTo(atMost) > 0) {
			// say where each came from: a default is set by a property, not on the method
			throw new IllegalStateException(source + ": lockAtLeastFor (" + DurationText.of(atLeast) + ", "
					+ (ownAtLeast ? "the attribute" : DEFAULT_AT_LEAST) + ") must not exceed lockAtMostFor ("
					+ DurationText.of(atMost) + ", " + (ownAtMost ? "the attribute" : DEFAULT_AT_MOST) + ")");
		}
		Scheduled schedule = cronSchedule(specific);
		String cron = (schedule != null) ? attributes.resolve(schedule.cron()).trim() : null;
		if (Scheduled.CRON_DISABLED.equals(cron)) {
			cron = null;
		}
		String zone = (cron != null && StringUtils.hasText(schedule.zone())) ? attributes.resolve(schedule.zone()).trim() : null;
		GuardedJob job = new GuardedJob(name, description, atMost, atLeast, cron, zone);
		warnIfPeriodOutrunsLockAtLeastFor(specific, job, attributes);
		return this.found.add(job);
	}

	/** The method's first {@code @Scheduled} with a cron expression, or null. */
	private static @Nullable Scheduled cronSchedule(Method method) {
		for (Scheduled scheduled : AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class)) {
			if (StringUtils.hasText(scheduled.cron())) {
				return scheduled;
			}
		}
		return null;
	}

	/**
	 * A fixed-rate or fixed-delay firing has no slot that instances agree on: only lockAtLeastFor
	 * keeps the instances, whose firings fall at different moments, from each running it once per
	 * period. Says so at startup when lockAtLeastFor is well below the period.
	 */
	private void warnIfPeriodOutrunsLockAtLeastFor(Method method, GuardedJob job, MethodAttributes attributes) {
		for (Scheduled scheduled : AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class)) {
			boolean rate = scheduled.fixedRate() > 0 || StringUtils.hasText(scheduled.fixedRateString());
			Duration period = period(scheduled.fixedRate(), scheduled.fixedRateString(), scheduled, attributes);
			if (period == null) {
				period = period(scheduled.fixedDelay(), scheduled.fixedDelayString(), scheduled, attributes);
			}
			if (period != null && job.lockAtLeastFor().compareTo(period.multipliedBy(8).dividedBy(10)) < 0) {
				logger.warn("@JobGuard on {} is {} {} with lockAtLeastFor {}: its firings differ per instance, so each "
						+ "instance may run it once per period; set lockAtLeastFor to a little less than the period "
						+ "(e.g. {}) for one run per period across instances", job.method(), rate ? "fixed-rate" : "fixed-delay",
						DurationText.of(period), DurationText.of(job.lockAtLeastFor()), DurationText.of(period.multipliedBy(9).dividedBy(10)));
			}
		}
	}

	private @Nullable Duration period(long value, String text, Scheduled scheduled, MethodAttributes attributes) {
		if (value > 0) {
			return Duration.of(value, scheduled.timeUnit().toChronoUnit());
		}
		if (!StringUtils.hasText(text)) {
			return null;
		}
		String resolved = attributes.resolve(text).trim();
		try {
			return Duration.of(Long.parseLong(resolved), scheduled.timeUnit().toChronoUnit());
		}
		catch (NumberFormatException ex) {
			try {
				return Duration.parse(resolved);
			}
			catch (RuntimeException notIso) {
				return null;
			}
		}
	}

}
