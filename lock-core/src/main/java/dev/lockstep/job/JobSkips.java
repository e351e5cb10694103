package dev.lockstep.job;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.GuardedJob;

/**
 * Firings this instance skipped: each told to the listeners; one skipped because Redis could not be
 * reached is kept, the last per job, until it can be recorded in Redis's skip record (at the next
 * claim or membership heartbeat of its job).
 */
final class JobSkips {

	private static final Logger logger = LoggerFactory.getLogger(JobSkips.class);

	private final GuardContext context;

	/** Per job, the last firing skipped because Redis could not be reached, until it is recorded there. */
	private final Map<String, UnrecordedSkip> unrecorded = new ConcurrentHashMap<>();

	JobSkips(GuardContext context) {
		this.context = context;
	}

	void skipped(GuardedJob job, String reason) {
		logger.debug("Job '{}' skipped this firing: {}", job.name(), reason);
		this.context.listener().jobSkipped(job.name(), reason);
	}

	/** A firing skipped because Redis could not be reached: recorded there once it can be. */
	void skippedUnrecorded(GuardedJob job, @Nullable Long slot, String reason) {
		this.unrecorded.put(job.name(), new UnrecordedSkip(slot, System.currentTimeMillis(), reason));
		skipped(job, reason);
	}

	/** Records in Redis the last firing skipped while it could not be reached, once it can be again. */
	void recordUnrecorded(GuardedJob job) {
		UnrecordedSkip skip = this.unrecorded.get(job.name());
		if (skip == null) {
			return;
		}
		this.context.scripts().skip(this.context.keys(job), this.context.instanceId(), skip.atMillis(), skip.slot(), skip.reason())
			.whenComplete((recorded, error) -> {
				if (error == null) {
					this.unrecorded.remove(job.name(), skip);
				}
			});
	}

	/** A firing skipped while Redis could not be reached. */
	private record UnrecordedSkip(@Nullable Long slot, long atMillis, String reason) {
	}

}
