package dev.lockstep.console;

/**
 * What the console keeps in Redis, each part through its own class over the same
 * {@link ConsoleRedis}: the instances' records, the queues' history, the activity counts and the
 * "run now" requests. The heartbeat writes them and the console's page reads them.
 */
record ConsoleStores(InstanceRecords records, ConsoleHistory history, ActivityHistory activity, JobTriggerRequests requests) {

	static ConsoleStores in(ConsoleRedis redis) {
		return new ConsoleStores(new InstanceRecords(redis), new ConsoleHistory(redis), new ActivityHistory(redis),
				new JobTriggerRequests(redis));
	}

}
