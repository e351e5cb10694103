package dev.lockstep.benchmark;

/**
 * One client of one lock library with connections of its own, as one application instance
 * would hold it. Safe for use by many threads at once, like the libraries themselves.
 */
interface LockClient extends LibraryClient {

	/** Blocks until the calling thread holds the lock for {@code key}. */
	Hold lock(String key) throws Exception;

	/** A lock held by the thread that took it; closing releases it (on that same thread). */
	@FunctionalInterface
	interface Hold extends AutoCloseable {

		@Override
		void close();

	}

}
