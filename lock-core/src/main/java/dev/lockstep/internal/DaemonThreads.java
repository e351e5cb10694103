package dev.lockstep.internal;

import java.util.concurrent.ThreadFactory;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Lockstep's threads: daemons (they never keep a JVM alive), each with the one name the
 * documentation gives it ({@code lockstep-timer}, {@code lockstep-events}, ...), made by Spring's
 * {@link CustomizableThreadFactory}. Internal to Lockstep.
 */
public final class DaemonThreads {

	private DaemonThreads() {
	}

	/** A factory of daemon threads all named {@code name} (each executor here has one thread, or threads of one role). */
	public static ThreadFactory named(String name) {
		CustomizableThreadFactory factory = new CustomizableThreadFactory(name) {

			@Override
			protected String nextThreadName() {
				return name;
			}

		};
		factory.setDaemon(true);
		return factory;
	}

	/** A started daemon thread named {@code name} running {@code task}. */
	public static Thread start(String name, Runnable task) {
		Thread thread = named(name).newThread(task);
		thread.start();
		return thread;
	}

}
