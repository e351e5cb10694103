package dev.lockstep.job;

import java.util.List;

/**
 * The Redis keys of one guarded job, all under one hash tag.
 * @param guard the guard (a lock value with the lockAtMostFor lease); never the key of a lock of the same name
 * @param state the hash with the current run, the last run, the last skip and the slot choice
 * @param slots the cron slots that ran, with their instance
 * @param members the instances seen alive
 * @param lastRuns each instance's last election (or, for a firing without a slot, last run start)
 * @param history the last runs, newest first
 * @param elections the instance chosen for each recent slot
 * @param fired each instance's last fired slot
 */
record JobKeys(String guard, String state, String slots, String members, String lastRuns, String history,
		String elections, String fired) {

	static JobKeys of(String prefix, String job) {
		String base = prefix + "{job:" + job + "}";
		return new JobKeys(base + ":guard", base + ":state", base + ":slots", base + ":members", base + ":ran", base + ":history",
				base + ":elected", base + ":fired");
	}

	List<String> forClaim() {
		return List.of(this.guard, this.state, this.slots, this.members, this.lastRuns, this.elections, this.fired);
	}

	/** The members first, then every other key that holds records (not the guard, which has its own lease). */
	List<String> forMembership() {
		return List.of(this.members, this.state, this.slots, this.lastRuns, this.history, this.elections, this.fired);
	}

	List<String> forUnclaim() {
		return List.of(this.guard, this.state, this.slots);
	}

	List<String> forFinish() {
		return List.of(this.guard, this.state, this.history);
	}

}
