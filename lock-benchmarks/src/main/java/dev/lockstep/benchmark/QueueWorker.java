package dev.lockstep.benchmark;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import com.sun.management.OperatingSystemMXBean;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.queue.QueueSettings;
import dev.lockstep.queue.RedisSerialQueue;

/**
 * The main class of a worker JVM of scenario G: one application instance with a
 * {@code @SerialQueueListener}-style handler on Lockstep's serial queue. Commands on standard
 * input, answers on standard output after {@value SerialGroupWorker#REPLY}:
 * <ul>
 * <li>{@code listen <queue> <workers> [<deduplication window ms>]}: runs the queue's tasks on
 * {@code workers} threads (the DONE records kept for the window, the default's without one); {@code listening}</li>
 * <li>{@code report}: a {@code task <run>} line per task run since the last report, then
 * {@code reported <CPU micros>}</li>
 * <li>{@code stop}: stops the workers and closes the connection; {@code stopped}</li>
 * </ul>
 * It exits when its standard input ends.
 */
public final class QueueWorker {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final String host;

	private final int port;

	private final PrintStream out;

	private final Queue<QueueTaskRun> runs = new ConcurrentLinkedQueue<>();

	private final OperatingSystemMXBean cpu = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

	private long cpuAtReport = this.cpu.getProcessCpuTime();

	private @Nullable LettuceConnectionFactory connections;

	private @Nullable RedisSerialQueue queue;

	private QueueWorker(String host, int port, PrintStream out) {
		this.host = host;
		this.port = port;
		this.out = out;
	}

	/** Arguments: Redis host, Redis port, this JVM's index (unused: every worker takes from the one queue). */
	public static void main(String[] args) throws Exception {
		PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false,
				StandardCharsets.UTF_8);
		QueueWorker worker = new QueueWorker(args[0], Integer.parseInt(args[1]), out);
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			worker.handle(line.trim());
		}
		System.exit(0);
	}

	private void handle(String line) {
		String[] command = line.split(" ");
		try {
			switch (command[0]) {
				case "listen" -> {
					listen(command[1], Integer.parseInt(command[2]),
							(command.length > 3) ? Duration.ofMillis(Long.parseLong(command[3])) : QueueSettings.DEFAULTS.deduplicationWindow());
					reply("listening");
				}
				case "report" -> {
					for (QueueTaskRun run = this.runs.poll(); run != null; run = this.runs.poll()) {
						this.out.print(SerialGroupWorker.REPLY + "task " + run.toLine() + "\n");
					}
					long cpuNow = this.cpu.getProcessCpuTime();
					reply("reported " + (cpuNow - this.cpuAtReport) / 1000);
					this.cpuAtReport = cpuNow;
				}
				case "stop" -> {
					stop();
					reply("stopped");
				}
				default -> throw new IllegalArgumentException("Unknown command '" + line + "'");
			}
		}
		catch (Exception ex) {
			ex.printStackTrace();
			reply("failed " + String.valueOf(ex).replace('\n', ' '));
		}
	}

	private void listen(String name, int workers, Duration deduplicationWindow) {
		stop();
		LettuceConnectionFactory factory = BenchmarkRedis.connect(this.host, this.port);
		RedisSerialQueue serialQueue = new RedisSerialQueue(factory, JSON);
		serialQueue.setKeyPrefix(SerialQueueScenario.KEY_PREFIX);
		QueueSettings defaults = QueueSettings.DEFAULTS;
		serialQueue.setDefaults(new QueueSettings(defaults.leaseTime(), defaults.maxAttempts(), defaults.retryBackoff(),
				deduplicationWindow));
		serialQueue.listen(name, workers, (task, payload) -> {
			QueueTask work = JSON.readValue(payload, QueueTask.class);
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

	private void reply(String answer) {
		this.out.print(SerialGroupWorker.REPLY + answer + "\n");
		this.out.flush();
	}

}
