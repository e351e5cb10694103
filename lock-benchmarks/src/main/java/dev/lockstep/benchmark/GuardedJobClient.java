package dev.lockstep.benchmark;

/**
 * One application instance with a scheduled job whose body does nothing but count, guarded so
 * that each firing runs on one instance only (scenarios F and F-CRON).
 */
interface GuardedJobClient extends AutoCloseable {

	/** One firing of the job, on the calling thread: the guard decides, the body runs, the guard lets go. */
	void fire() throws Exception;

	/** How many times the job's body has run. */
	long runs();

	/**
	 * Throws if the firings did not reach the guard the way the scenario means them to (for
	 * example, a cron firing without its slot).
	 */
	default void checkFirings() {
	}

	/** Closes the instance's connections and threads. */
	@Override
	void close();

}
