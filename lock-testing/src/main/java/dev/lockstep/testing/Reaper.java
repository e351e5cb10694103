package dev.lockstep.testing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The child processes of one kind that this JVM started and has not ended yet, killed when the
 * JVM exits in any case, so that a failed test or a run cut short leaves none behind.
 * @param <T> the kind of process
 */
final class Reaper<T> {

	private final Set<T> running = ConcurrentHashMap.newKeySet();

	/**
	 * @param name the name of the JVM shutdown hook's thread
	 * @param kill how the hook ends one process still running
	 */
	Reaper(String name, Consumer<T> kill) {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> this.running.forEach(kill), name));
	}

	/** {@code process} has started: killed at the JVM's exit unless it is {@link #remove removed} first. */
	void add(T process) {
		this.running.add(process);
	}

	/** {@code process} has ended. */
	void remove(T process) {
		this.running.remove(process);
	}

}
