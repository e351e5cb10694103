package dev.lockstep.job;

import java.util.List;

/**
 * The Redis keys of one guarded job, all under one hash tag; job-claim.lua describes what each
 * holds.
 * @param guard the guard (a lock value with the lockAtMostFor lease); never the key of a lock of the same name
 * @param state the hash with the last skip
 * @param slots each recent cron slot's election and who ran it
 * @param members per instance: when it was last seen alive, the last slot it fired and the last it was elected for
 * @param history the last runs, newest first
 */
record JobKeys(String guard, String state, String slots, String members, String history) {

	static JobKeys of(String prefix, String job) {
		String base = prefix + "{job:" + job + "}";
		return new JobKeys(base + ":guard", base + ":state", base + ":slots", base + ":members", base + ":history");
	}

	List<String> forClaim() {
		return List.of(this.guard, this.state, this.slots, this.members);
	}

	/** The members and the slots first, then every other key that holds records (not the guard, which has its own lease). */
	List<String> forMembership() {
		return List.of(this.members, this.slots, this.state, this.history);
	}

	List<String> forUnclaim() {
		return List.of(this.guard, this.slots);
	}

	List<String> forView() {
		return List.of(this.state, this.history, this.members, this.slots);
	}

	List<String> forFinish() {
		return List.of(this.guard, this.history);
	}

}
