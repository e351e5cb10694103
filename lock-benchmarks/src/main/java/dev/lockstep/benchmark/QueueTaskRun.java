package dev.lockstep.benchmark;

/**
 * When one task of scenario G arrived and ran, in wall-clock microseconds (see {@link GroupTaskRun}).
 * @param group 0 for the hot group, 1 and up for the cold ones
 * @param sequence the task's place in its group
 * @param arrivedMicros when it was submitted (the queue) or put where workers take it (the others)
 * @param startMicros when its work started
 * @param endMicros when its work ended
 */
record QueueTaskRun(int group, int sequence, long arrivedMicros, long startMicros, long endMicros) {

	String toLine() {
		return this.group + " " + this.sequence + " " + this.arrivedMicros + " " + this.startMicros + " " + this.endMicros;
	}

	static QueueTaskRun parse(String line) {
		String[] parts = line.trim().split(" ");
		if (parts.length != 5) {
			throw new IllegalArgumentException("Not a queue task run: '" + line + "'");
		}
		return new QueueTaskRun(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Long.parseLong(parts[2]),
				Long.parseLong(parts[3]), Long.parseLong(parts[4]));
	}

}
