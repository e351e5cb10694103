package dev.lockstep.job;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The scheduler firing the current thread is running, if any.
 * @param scheduledTime when the scheduler meant the firing to run, by its own clock
 * @param cron whether a cron trigger computed that time, which makes it the same on every
 * instance (a cron slot); fixed-rate and fixed-delay times depend on each instance's start
 */
record TriggerFiring(Instant scheduledTime, boolean cron) {

	private static final ThreadLocal<TriggerFiring> CURRENT = new ThreadLocal<>();

	static @Nullable TriggerFiring current() {
		return CURRENT.get();
	}

	static void run(@Nullable TriggerFiring firing, Runnable task) {
		TriggerFiring outer = CURRENT.get();
		CURRENT.set(firing);
		try {
			task.run();
		}
		finally {
			if (outer == null) {
				CURRENT.remove();
			}
			else {
				CURRENT.set(outer);
			}
		}
	}

}
