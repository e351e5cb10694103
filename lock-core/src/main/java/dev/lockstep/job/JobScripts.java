package dev.lockstep.job;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import dev.lockstep.internal.redis.FeatureScripts;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.ScriptSet;

/** The job guard's Lua scripts with typed arguments; each call is one round trip. */
final class JobScripts extends FeatureScripts {

	/** The job guard's scripts, each after the lock values' library ({@code lock-values.lua}). */
	private static final ScriptSet SCRIPTS = new ScriptSet(JobScripts.class, RedisScripts.LOCK_VALUES)
		.returning(ScriptOutputType.MULTI, "job-claim.lua", "job-renew.lua", "job-view.lua")
		.returning(ScriptOutputType.INTEGER, "job-unclaim.lua", "job-finish.lua", "job-skip.lua", "job-member.lua");

	JobScripts(RedisScripts redis) {
		super(redis, SCRIPTS);
	}

	/** {1, token, start}, {0, reason, now}, {2, chosen instance, now} or {3, reason, now, ...}; see job-claim.lua. */
	CompletableFuture<List<Object>> claim(JobKeys keys, String instance, String owner, long leaseMillis,
			@Nullable Long slot, boolean takeover, long livenessMillis, long horizonMillis) {
		return claim(keys, instance, owner, leaseMillis, slot, takeover ? Mode.TAKEOVER : Mode.FIRST, null,
				livenessMillis, horizonMillis);
	}

	/** A claim with no window for its slot (the horizon alone), by an instance not yet a member. */
	CompletableFuture<List<Object>> claim(JobKeys keys, String instance, String owner, long leaseMillis,
			@Nullable Long slot, Mode mode, @Nullable String holder, long livenessMillis, long horizonMillis) {
		return claim(keys, instance, owner, leaseMillis, slot, mode, holder, livenessMillis, horizonMillis, null, 0, false);
	}

	/**
	 * Claims a firing; see job-claim.lua.
	 * @param holder for {@link Mode#GIVE_UP}: the owner id of the run found holding the guard
	 * @param latestStart the latest time, on Redis's clock, at which the slot may still start (see
	 * {@link SlotWindow}), or null for none
	 * @param skewToleranceMillis lockstep.job-guard.skew-tolerance
	 * @param member whether this instance's membership of the job was recorded before (finding it
	 * gone then means Redis lost the job's records)
	 */
	CompletableFuture<List<Object>> claim(JobKeys keys, String instance, String owner, long leaseMillis,
			@Nullable Long slot, Mode mode, @Nullable String holder, long livenessMillis, long horizonMillis,
			@Nullable Long latestStart, long skewToleranceMillis, boolean member) {
		return run("job-claim.lua", keys.forClaim(), List.of(instance, owner, Long.toString(leaseMillis),
				(slot != null) ? slot.toString() : "", mode.argument, Long.toString(livenessMillis),
				Long.toString(horizonMillis), (holder != null) ? holder : "",
				(latestStart != null) ? latestStart.toString() : "", Long.toString(skewToleranceMillis), member ? "1" : "0"));
	}

	/** How a claim is made. */
	enum Mode {

		/** The instance's own firing: elects the slot's instance if nobody did yet. */
		FIRST("first"),

		/** An undecided slot tried again: left to an instance that never started it, or found the guard held. */
		TAKEOVER("takeover"),

		/**
		 * The chosen instance found the guard held by an earlier slot's run a whole period after that
		 * slot: runs if the guard is free now, else decides the slot skipped while that run still holds it.
		 */
		GIVE_UP("give-up");

		private final String argument;

		Mode(String argument) {
			this.argument = argument;
		}

	}

	/** 1 when a claim whose reply was lost had taken the guard and is now undone, else 0. */
	CompletableFuture<Long> unclaim(JobKeys keys, String owner, String instance, @Nullable Long slot) {
		return run("job-unclaim.lua", keys.forUnclaim(), List.of(owner, instance, (slot != null) ? slot.toString() : ""));
	}

	/**
	 * 1 when the guard was released or shortened to lockAtLeastFor, 0 when the run no longer held it.
	 * @param endMillis the run's end on Redis's clock: its start plus its duration by this JVM's monotonic clock
	 */
	CompletableFuture<Long> finish(JobKeys keys, String owner, String instance, @Nullable Long slot, long startMillis,
			long endMillis, @Nullable Throwable failure, long lockAtLeastForMillis, int historySize) {
		return run("job-finish.lua", keys.forFinish(), List.of(owner, instance, (slot != null) ? slot.toString() : "",
				Long.toString(startMillis), Long.toString(endMillis), (failure == null) ? "success" : "failed",
				(failure == null) ? "" : failure.getClass().getName(), Long.toString(lockAtLeastForMillis),
				Integer.toString(historySize)));
	}

	/** {1} when the run still owned the guard and its lease was extended, {0} otherwise. */
	CompletableFuture<List<Long>> renew(JobKeys keys, String owner, long leaseMillis) {
		return run("job-renew.lua", List.of(keys.guard()), List.of(owner, Long.toString(leaseMillis)));
	}

	/** Records a skip made while Redis could not be reached: 1, or 0 when a later skip is recorded already. */
	CompletableFuture<Long> skip(JobKeys keys, String instance, long atMillis, @Nullable Long slot, String reason) {
		return run("job-skip.lua", List.of(keys.state()), List.of(instance, Long.toString(atMillis),
				(slot != null) ? slot.toString() : "", reason));
	}

	/**
	 * Marks {@code instance} alive for the job ({@code join}) or gone, keeps the records for the
	 * retention time and prunes those older than the horizon and instances long gone; see job-member.lua.
	 */
	CompletableFuture<Long> member(JobKeys keys, String instance, boolean join, long retentionMillis,
			long livenessMillis, long horizonMillis) {
		return member(keys, instance, join, retentionMillis, livenessMillis, horizonMillis, false, 0);
	}

	/**
	 * As above, by an instance whose membership was recorded before ({@code member}): finding it gone,
	 * it records that Redis lost the job's records; see job-member.lua.
	 */
	CompletableFuture<Long> member(JobKeys keys, String instance, boolean join, long retentionMillis,
			long livenessMillis, long horizonMillis, boolean member, long skewToleranceMillis) {
		return run("job-member.lua", keys.forMembership(), List.of(instance, join ? "join" : "leave",
				Long.toString(retentionMillis), Long.toString(livenessMillis), Long.toString(horizonMillis),
				member ? "1" : "0", Long.toString(skewToleranceMillis)));
	}

	/**
	 * Reads a job's records for the monitoring views, writing nothing; see job-view.lua.
	 * @param what {@code state}, {@code history}, {@code members}, {@code elections} or {@code next}
	 * @param argument the last history index, the number of slot records, or the next slot ('' for none)
	 */
	CompletableFuture<List<Object>> view(JobKeys keys, String what, String argument) {
		return run("job-view.lua", keys.forView(), List.of(what, argument));
	}

}
