package dev.lockstep.benchmark;

/**
 * One application instance's way of running tasks one at a time per group, in the order they
 * queued, across instances (scenario E). Safe for use by many threads at once.
 */
interface SerialGroupClient extends AutoCloseable {

	/** Waits for the group's turn, runs {@code task} and gives the turn to the next in line. */
	void run(String group, Runnable task) throws Exception;

	/** Closes the client's connections and threads. */
	@Override
	void close();

	/** A new client of {@code library} with connections of its own to the Redis at {@code host:port}. */
	static SerialGroupClient connect(Library library, String host, int port) {
		return switch (library) {
			case LOCKSTEP, LOCKSTEP_SERIAL_GROUP -> new LockstepSerialGroupClient(host, port);
			case REDISSON_FAIR -> new RedissonFairLockGroupClient(host, port);
			default -> throw new IllegalArgumentException(library.title() + " has no serial groups");
		};
	}

}
