package dev.lockstep.autoconfigure.actuate;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobGuardRegistry;

/**
 * {@code jobs} and {@code jobs/{name}} of the endpoint, read through the {@link JobGuardRegistry}.
 * @param jobs the job records
 */
record JobEndpointPart(JobGuardRegistry jobs) {

	List<String> names() {
		return this.jobs.jobs().stream().map(GuardedJob::name).toList();
	}

	/** {@code jobs} (no name) or {@code jobs/{name}}; a name neither guarded here nor known to Redis is not found. */
	@Nullable Object read(@Nullable String name) {
		if (name == null) {
			return this.jobs.jobs().stream().map(this::summary).toList();
		}
		LockstepEndpoint.JobDetail detail = new LockstepEndpoint.JobDetail(name, this.jobs.lastRun(name).orElse(null),
				this.jobs.lastSkip(name).orElse(null), this.jobs.history(name), this.jobs.members(name),
				this.jobs.elections(name), this.jobs.nextSlot(name).orElse(null));
		// a name neither guarded here nor known to Redis is a typo, not an idle job: not found
		boolean known = this.jobs.jobs().stream().anyMatch((job) -> job.name().equals(name)) || detail.lastRun() != null
				|| detail.lastSkip() != null || !detail.history().isEmpty() || !detail.members().isEmpty();
		return known ? detail : null;
	}

	private LockstepEndpoint.JobSummary summary(GuardedJob job) {
		return new LockstepEndpoint.JobSummary(job.name(), job.method(), job.lockAtMostFor(), job.lockAtLeastFor(),
				job.cron(), this.jobs.lastRun(job.name()).orElse(null), this.jobs.lastSkip(job.name()).orElse(null),
				this.jobs.nextSlot(job.name()).orElse(null));
	}

}
