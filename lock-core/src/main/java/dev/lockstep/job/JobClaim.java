package dev.lockstep.job;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstep.internal.redis.ScriptSet;

/**
 * What job-claim.lua decided about one firing, decoded from its reply.
 * @param owner the owner id the claim was made with
 * @param outcome 1 run, 0 skip, 2 left to another instance, 3 another run holds the guard
 * @param token the run's fencing token when it runs
 * @param serverMillis Redis's time at the claim (the run's start when it runs)
 * @param reason why it does not run
 * @param holder when another run holds the guard: that run's owner id, its slot (null when it has
 * none or is unknown) and its start on Redis's clock; else null
 */
record JobClaim(String owner, int outcome, long token, long serverMillis, String reason, @Nullable Holder holder) {

	static JobClaim of(String owner, List<Object> reply) {
		int outcome = ((Long) reply.get(0)).intValue();
		if (outcome == 1) {
			return new JobClaim(owner, 1, (Long) reply.get(1), (Long) reply.get(2), "", null);
		}
		String detail = ScriptSet.text(reply.get(1));
		Holder holder = null;
		if (outcome == 3 && reply.size() >= 6) {
			String slot = ScriptSet.text(reply.get(3));
			holder = new Holder(ScriptSet.text(reply.get(5)), slot.isEmpty() ? null : Long.valueOf(slot), (Long) reply.get(4));
		}
		return new JobClaim(owner, outcome, 0, (Long) reply.get(2),
				(outcome == 2) ? "left to " + detail + ", which was elected least recently" : detail, holder);
	}

	long start() {
		return this.serverMillis;
	}

	boolean runs() {
		return this.outcome == 1;
	}

	/** Left to another instance, which may never start it: a takeover follows. */
	boolean deferred() {
		return this.outcome == 2;
	}

	/** Another run holds the guard. */
	boolean held() {
		return this.outcome == 3;
	}

	/**
	 * Whether the run holding the guard is an earlier slot's run that has lasted at least the time
	 * between its slot and {@code slot}: a job longer than its period, not one that merely started
	 * late on a lagging clock or a paused instance (Redis's clock measures both).
	 */
	boolean heldByAnEarlierSlotForAWholePeriod(long slot) {
		Holder holder = this.holder;
		return holder != null && holder.slot() != null && holder.slot() < slot
				&& this.serverMillis - holder.start() >= slot - holder.slot();
	}

	/** The run found holding the guard. */
	record Holder(String owner, @Nullable Long slot, long start) {
	}

}
