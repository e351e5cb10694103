package dev.lockstep.job;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What job-claim.lua decided about one firing, decoded from its reply.
 * @param owner the owner id the claim was made with
 * @param outcome 1 run, 0 skip, 2 left to another instance, 3 another run holds the guard
 * @param token the run's fencing token when it runs
 * @param serverMillis Redis's time at the claim (the run's start when it runs)
 * @param reason why it does not run
 */
record JobClaim(String owner, int outcome, long token, long serverMillis, String reason) {

	static JobClaim of(String owner, List<Object> reply) {
		int outcome = ((Long) reply.get(0)).intValue();
		if (outcome == 1) {
			return new JobClaim(owner, 1, (Long) reply.get(1), (Long) reply.get(2), "");
		}
		String detail = new String((byte[]) reply.get(1), StandardCharsets.UTF_8);
		return new JobClaim(owner, outcome, 0, (Long) reply.get(2),
				(outcome == 2) ? "left to " + detail + ", which was elected least recently" : detail);
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

}
