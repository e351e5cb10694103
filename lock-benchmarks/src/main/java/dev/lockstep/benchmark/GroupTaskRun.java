package dev.lockstep.benchmark;

import java.time.Instant;

/**
 * When one task of scenario E ran: from just after its group's turn came to just before it gave
 * the turn on. Times are wall-clock microseconds, so that runs recorded by different JVMs on one
 * machine line up; the gap between two turns of a group (a Redis round trip at least) is far
 * longer than the clock's resolution.
 * @param group the task's group
 * @param sequence the task's place in its group's submission order
 * @param startMicros when it started
 * @param endMicros when it ended
 */
record GroupTaskRun(int group, int sequence, long startMicros, long endMicros) {

	/** The wall clock in microseconds since the epoch. */
	static long nowMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
	}

	String toLine() {
		return this.group + " " + this.sequence + " " + this.startMicros + " " + this.endMicros;
	}

	static GroupTaskRun parse(String line) {
		String[] parts = line.trim().split(" ");
		if (parts.length != 4) {
			throw new IllegalArgumentException("Not a task run: '" + line + "'");
		}
		return new GroupTaskRun(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Long.parseLong(parts[2]),
				Long.parseLong(parts[3]));
	}

}
