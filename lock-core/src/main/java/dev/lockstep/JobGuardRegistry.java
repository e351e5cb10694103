package dev.lockstep;

import java.util.List;
import java.util.Optional;

/**
 * The guarded jobs of this instance and what Redis records about their runs across all
 * instances. Records are bounded (a short history per job) and expire when a job stops firing.
 */
public interface JobGuardRegistry {

	/** The id this instance writes into run records and skip reasons. */
	String instanceId();

	/** The jobs this instance guards. */
	List<GuardedJob> jobs();

	/** The last finished run of {@code job} on any instance. */
	Optional<JobRun> lastRun(String job);

	/** The last firing of {@code job} that an instance skipped, and why. */
	Optional<JobSkip> lastSkip(String job);

	/** The most recent finished runs of {@code job}, newest first. */
	List<JobRun> history(String job);

	/**
	 * The instances seen alive for {@code job} on any instance, most recently seen first; none
	 * unless the registry records them.
	 */
	default List<JobMember> members(String job) {
		return List.of();
	}

	/**
	 * The instances chosen for the most recent cron slots of {@code job}, newest slot first; none
	 * unless the registry records them.
	 */
	default List<JobElection> elections(String job) {
		return List.of();
	}

	/**
	 * The next cron slot of {@code job} and the instance expected to run it; empty for a job
	 * without a cron schedule, or unless the registry records elections.
	 */
	default Optional<JobNextSlot> nextSlot(String job) {
		return Optional.empty();
	}

}
