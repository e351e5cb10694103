package dev.lockstep.job;

import java.time.Duration;

import dev.lockstep.GuardedJob;
import dev.lockstep.LockListener;

/**
 * What the job guard's parts ({@link FiringClaims}, {@link RunGuards}, {@link JobSkips}) share: its
 * scripts, its key prefix, this instance's id, where Redis is (in words, for log lines), the
 * command timeout and the listener.
 */
record GuardContext(JobScripts scripts, String keyPrefix, String instanceId, String redis, Duration commandTimeout,
		LockListener listener) {

	/** The keys of {@code job}. */
	JobKeys keys(GuardedJob job) {
		return JobKeys.of(this.keyPrefix, job.name());
	}

}
