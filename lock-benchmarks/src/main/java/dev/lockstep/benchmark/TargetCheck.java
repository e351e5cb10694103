package dev.lockstep.benchmark;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * One of the project's performance targets and whether this run met it.
 * @param scenario the scenario's id
 * @param target what Lockstep should reach, in words
 * @param verdict met, missed, or not measured (a library or scenario was left out or failed)
 * @param evidence the figures the verdict rests on
 */
record TargetCheck(String scenario, String target, Verdict verdict, String evidence) {

	/** Whether a target was met. */
	enum Verdict {

		MET("met"), MISSED("NOT met"), NOT_MEASURED("not measured");

		private final String label;

		Verdict(String label) {
			this.label = label;
		}

		String label() {
			return this.label;
		}

	}

	/** {@code lockstep >= factor * other}, e.g. "≥ 0.85x raw". */
	static TargetCheck atLeast(String scenario, String target, @Nullable Double lockstep, double factor,
			@Nullable Double other) {
		if (lockstep == null || other == null) {
			return new TargetCheck(scenario, target, Verdict.NOT_MEASURED, "");
		}
		return new TargetCheck(scenario, target, verdict(lockstep >= factor * other), ratio(lockstep, other));
	}

	/** {@code lockstep <= factor * other}, e.g. "≤ half of Redisson's". */
	static TargetCheck atMost(String scenario, String target, @Nullable Double lockstep, double factor,
			@Nullable Double other) {
		if (lockstep == null || other == null) {
			return new TargetCheck(scenario, target, Verdict.NOT_MEASURED, "");
		}
		return new TargetCheck(scenario, target, verdict(lockstep <= factor * other), ratio(lockstep, other));
	}

	/** {@code lockstep <= limit}, an absolute bound. */
	static TargetCheck atMostValue(String scenario, String target, @Nullable Double lockstep, double limit) {
		if (lockstep == null) {
			return new TargetCheck(scenario, target, Verdict.NOT_MEASURED, "");
		}
		return new TargetCheck(scenario, target, verdict(lockstep <= limit),
				"Lockstep " + Metric.formatDecimal(lockstep));
	}

	private static Verdict verdict(boolean met) {
		return met ? Verdict.MET : Verdict.MISSED;
	}

	private static String ratio(double lockstep, double other) {
		return String.format(Locale.ROOT, "ratio %.2f", lockstep / other);
	}

}
