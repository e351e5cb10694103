package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.List;

/**
 * The worker JVMs ({@link GroupWorkerProcess}es) a scenario keeps from run to run: started by the
 * first run that needs them, ended when the scenario closes (or a run leaves them in a state the
 * next run cannot trust).
 */
final class WorkerJvms implements AutoCloseable {

	private final String name;

	private final Class<?> mainClass;

	private final int count;

	private final List<GroupWorkerProcess> workers = new ArrayList<>();

	/**
	 * @param name the workers' name, followed by each one's index
	 * @param mainClass the workers' main class, which takes commands through a {@link WorkerConsole}
	 * @param count how many there are
	 */
	WorkerJvms(String name, Class<?> mainClass, int count) {
		this.name = name;
		this.mainClass = mainClass;
		this.count = count;
	}

	/** Whether the workers have started and not been closed since. */
	boolean isRunning() {
		return !this.workers.isEmpty();
	}

	/** The workers, each given its index and the Redis at {@code redis}; started first if they are not running. */
	List<GroupWorkerProcess> running(BenchmarkRedis redis) {
		if (this.workers.isEmpty()) {
			for (int jvm = 0; jvm < this.count; jvm++) {
				this.workers.add(GroupWorkerProcess.start(this.name + "-" + jvm, this.mainClass, redis, jvm));
			}
		}
		return this.workers;
	}

	@Override
	public void close() {
		this.workers.forEach(GroupWorkerProcess::close);
		this.workers.clear();
	}

}
