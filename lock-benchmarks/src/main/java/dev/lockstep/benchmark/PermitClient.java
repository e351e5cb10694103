package dev.lockstep.benchmark;

/**
 * One library's permits as scenario I-PERMIT uses them: one client (connections of its own)
 * standing for one instance of a service, every key with {@link PermitScenario#PERMITS} permits.
 * Safe for use by many threads at once.
 */
interface PermitClient extends LibraryClient {

	/** Blocks until the calling thread holds one of {@code key}'s permits. */
	Permit acquire(String key) throws Exception;

	/** A permit held; releasing it frees it for the next caller. */
	@FunctionalInterface
	interface Permit {

		void release() throws Exception;

	}

}
