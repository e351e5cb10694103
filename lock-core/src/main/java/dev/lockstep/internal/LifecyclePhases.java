package dev.lockstep.internal;

/**
 * The {@code SmartLifecycle} phases of Lockstep's components, in one place: a component starts in
 * ascending and stops in descending order of its phase, so what uses another has the higher one.
 */
public final class LifecyclePhases {

	/** The lock service: stops after everything that takes locks, before the connection factory. */
	public static final int LOCK_SERVICE = 1000;

	/** The serial queues' workers: stop before the lock service, which tasks may use. */
	public static final int SERIAL_QUEUE = 1100;

	/** The queue gauges: start once the queues have registered their listeners. */
	public static final int QUEUE_GAUGES = 1200;

	/** The job guard: stops after the schedulers, so that their jobs are done, and before the lock service. */
	public static final int JOB_GUARD = 2000;

	private LifecyclePhases() {
	}

}
