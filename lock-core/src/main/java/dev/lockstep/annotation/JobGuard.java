package dev.lockstep.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Lets each firing of a {@code @Scheduled} job run on exactly one instance. A cron firing is
 * identified by its scheduled time, so instances agree on it whatever their clocks say; among
 * live instances the one that ran the job least recently runs it. While a run lasts its guard is
 * renewed; a runner that dies frees the guard within {@code lockAtMostFor}. A firing left to
 * another instance is skipped quietly (debug log, a metric).
 *
 * <pre class="code">
 * &#64;Scheduled(cron = "0 0 9 * * *")
 * &#64;JobGuard(lockAtMostFor = "15m")
 * public void dailyPush() { ... }
 * </pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface JobGuard {

	/** Guard name, unique in the application; defaults to {@code SimpleClassName.methodName}. */
	String name() default "";

	/**
	 * How long a runner that stopped renewing (it died) keeps the guard ({@code 10m}, {@code ${...}});
	 * empty means {@code lockstep.job-guard.lock-at-most-for}. A live run keeps renewing it.
	 */
	String lockAtMostFor() default "";

	/**
	 * The least time a run keeps the guard after it starts, so that fixed-rate and fixed-delay
	 * firings on other instances do not repeat it; empty means {@code lockstep.job-guard.lock-at-least-for}.
	 */
	String lockAtLeastFor() default "";

}
