package dev.lockstep.benchmark;

/**
 * One client of one library with connections of its own, standing for one application instance;
 * the scenarios' client kinds ({@link LockClient}, {@link PermitClient}, {@link RateLimitClient})
 * are each one of these.
 */
interface LibraryClient extends AutoCloseable {

	/** Closes the client's connections and threads. */
	@Override
	void close();

}
