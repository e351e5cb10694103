package dev.lockstep.job;

import org.jspecify.annotations.Nullable;

import dev.lockstep.JobFiring;
import dev.lockstep.internal.ThreadScoped;

/** The guarded run each thread is in, as {@link JobFiring#current()} reads it. */
final class GuardedRuns {

	private static final ThreadScoped<JobFiring> CURRENT = ThreadScoped.of(JobFiring.class);

	private GuardedRuns() {
	}

	static @Nullable JobFiring enter(JobFiring firing) {
		return CURRENT.enter(firing);
	}

	static void exit(@Nullable JobFiring outer) {
		CURRENT.exit(outer);
	}

}
