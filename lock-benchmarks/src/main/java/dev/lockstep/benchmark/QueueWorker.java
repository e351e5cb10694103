package dev.lockstep.benchmark;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import com.sun.management.OperatingSystemMXBean;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.queue.QueueSettings;
import dev.lockstep.queue.RedisSerialQueue;

/**
 * The main class of a worker JVM of scenario G: one application instance with a
 * {@code @SerialQueueListener}-style handler on Lockstep's serial queue. Commands and answers
 * through a {@link WorkerConsole}:
 * <ul>
 * <li>{@code listen <queue> <workers> [<deduplication window ms>]}: runs the queue's tasks on
 * {@code workers} threads (the DONE records kept for the window, the default's without one); {@code listening}</li>
 * <li>{@code report}: a {@code task <run>} line per task run since the last report, then
 * {@code reported <CPU micros>}</li>
 * <li>{@code stop}: stops the workers and closes the connection; {@code stopped}</li>
 * </ul>
 */
public final class QueueWorker {

	private final String host;

	private final int port;

	private final WorkerConsole console;

	private final Queue<QueueTaskRun> runs = new ConcurrentLinkedQueue<>();

	private final OperatingSystemMXBean cpu = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

	private long cpuAtReport = this.cpu.getProcessCpuTime();

	private @Nullable LettuceConnectionFactory connections;

	private @Nullable RedisSerialQueue queue;

	private QueueWorker(String host, int port, WorkerConsole console) {
		this.host = host;
		this.port = port;
		this.console = console;
	}

	/** Arguments: Redis host, Redis port, this JVM's index (unused: every worker takes from the one queue). */
	public static void main(String[] args) throws Exception {
		WorkerConsole console = new WorkerConsole();
		QueueWorker worker = new QueueWorker(args[0], Integer.parseInt(args[1]), console);
		console.serve(worker::handle);
	}

	private void handle(String line) {
		String[] command = line.split(" ");
		switch (command[0]) {
			case "listen" -> {
				listen(command[1], Integer.parseInt(command[2]),
						(command.length > 3) ? Duration.ofMillis(Long.parseLong(command[3])) : QueueSettings.DEFAULTS.deduplicationWindow());
				this.console.answer("listening");
			}
			case "report" -> {
				for (QueueTaskRun run = this.runs.poll(); run != null; run = this.runs.poll()) {
					this.console.line("task " + run.toLine());
				}
				long cpuNow = this.cpu.getProcessCpuTime();
				this.console.answer("reported " + (cpuNow - this.cpuAtReport) / 1000);
				this.cpuAtReport = cpuNow;
			}
			case "stop" -> {
				stop();
				this.console.answer("stopped");
			}
			default -> throw new IllegalArgumentException("Unknown command '" + line + "'");
		}
	}

	private void listen(String name, int workers, Duration deduplicationWindow) {
		stop();
		LettuceConnectionFactory factory = BenchmarkRedis.connect(this.host, this.port);
		RedisSerialQueue serialQueue = LockstepServices.queue(factory);
		QueueSettings defaults = QueueSettings.DEFAULTS;
		serialQueue.setDefaults(new QueueSettings(defaults.leaseTime(), defaults.maxAttempts(), defaults.retryBackoff(),
				deduplicationWindow));
		serialQueue.listen(name, workers, (task, payload) -> {
			QueueTask work = LockstepServices.JSON.readValue(payload, QueueTask.class);
			long start = GroupTaskRun.nowMicros();
			LockSupport.parkNanos(work.workMicros() * 1000);
			this.runs.add(new QueueTaskRun(work.group(), work.sequence(), work.submittedMicros(), start,
					GroupTaskRun.nowMicros()));
		}, "scenario G worker");
		serialQueue.start();
		this.connections = factory;
		this.queue = serialQueue;
		this.cpuAtReport = this.cpu.getProcessCpuTime();
	}

	private void stop() {
		if (this.queue != null) {
			this.queue.stop();
			this.queue = null;
		}
		if (this.connections != null) {
			this.connections.destroy();
			this.connections = null;
		}
	}

}
