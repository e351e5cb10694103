package dev.lockstep.job;

import org.jspecify.annotations.Nullable;

import dev.lockstep.JobFiring;

/**
 * Internal; public only for {@link JobFiring#current()}. The guarded run each thread is in.
 */
public final class GuardedRuns {

	private static final ThreadLocal<JobFiring> CURRENT = new ThreadLocal<>();

	private GuardedRuns() {
	}

	/** The guarded run the current thread is in, or null. */
	public static @Nullable JobFiring current() {
		return CURRENT.get();
	}

	static @Nullable JobFiring enter(JobFiring firing) {
		JobFiring outer = CURRENT.get();
		CURRENT.set(firing);
		return outer;
	}

	static void exit(@Nullable JobFiring outer) {
		if (outer == null) {
			CURRENT.remove();
		}
		else {
			CURRENT.set(outer);
		}
	}

}
