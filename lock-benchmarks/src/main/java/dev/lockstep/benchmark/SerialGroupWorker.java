package dev.lockstep.benchmark;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;

import com.sun.management.OperatingSystemMXBean;
import org.jspecify.annotations.Nullable;

/**
 * The main class of a child JVM of scenario E: one application instance that submits its share
 * of each job. It takes commands on standard input, one a line, and answers each on standard
 * output with a line starting with {@value #REPLY} (anything else there is not an answer):
 * <ul>
 * <li>{@code open <library>}: connects a client of the library; {@code opened}</li>
 * <li>{@code job <job line>}: starts the worker threads of this JVM's share, waiting; {@code ready}</li>
 * <li>{@code go}: lets them run; a {@code task <run>} line per task run, then {@code done <start micros>
 * <CPU micros>}: when the job started, and the CPU time this JVM used meanwhile</li>
 * <li>{@code close}: closes the client; {@code closed}</li>
 * </ul>
 * A command that fails is answered with {@code failed <reason>}. The worker exits when its
 * standard input ends, so it never outlives the benchmark.
 */
public final class SerialGroupWorker {

	static final String REPLY = "@e ";

	private final String host;

	private final int port;

	private final int jvm;

	private final PrintStream out;

	private final OperatingSystemMXBean cpu = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

	private @Nullable SerialGroupClient client;

	private @Nullable GroupJobShare share;

	private SerialGroupWorker(String host, int port, int jvm, PrintStream out) {
		this.host = host;
		this.port = port;
		this.jvm = jvm;
		this.out = out;
	}

	/** Arguments: Redis host, Redis port, this JVM's index among the submitting JVMs (from 0). */
	public static void main(String[] args) throws Exception {
		// buffered: a job's answer is a few thousand lines
		PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false,
				StandardCharsets.UTF_8);
		SerialGroupWorker worker = new SerialGroupWorker(args[0], Integer.parseInt(args[1]), Integer.parseInt(args[2]), out);
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			worker.handle(line.trim());
		}
		// the benchmark has gone: leave no client thread behind
		System.exit(0);
	}

	private void handle(String line) {
		String[] command = line.split(" ", 2);
		try {
			switch (command[0]) {
				case "open" -> {
					this.client = SerialGroupClient.connect(Library.byId(command[1]), this.host, this.port);
					reply("opened");
				}
				case "job" -> {
					this.share = new GroupJobShare(GroupJob.parse(command[1]), this.jvm, client());
					reply("ready");
				}
				case "go" -> run();
				case "close" -> {
					SerialGroupClient open = this.client;
					this.client = null;
					if (open != null) {
						open.close();
					}
					reply("closed");
				}
				default -> throw new IllegalArgumentException("Unknown command '" + line + "'");
			}
		}
		catch (Exception ex) {
			ex.printStackTrace();
			reply("failed " + String.valueOf(ex).replace('\n', ' '));
		}
	}

	private void run() throws InterruptedException {
		GroupJobShare running = this.share;
		if (running == null) {
			throw new IllegalStateException("No job to run");
		}
		this.share = null;
		long cpuBefore = this.cpu.getProcessCpuTime();
		long start = running.start();
		List<GroupTaskRun> runs = running.await();
		long cpuMicros = (this.cpu.getProcessCpuTime() - cpuBefore) / 1000;
		for (GroupTaskRun run : runs) {
			this.out.print(REPLY + "task " + run.toLine() + "\n");
		}
		reply("done " + start + " " + cpuMicros);
	}

	private SerialGroupClient client() {
		if (this.client == null) {
			throw new IllegalStateException("No client open");
		}
		return this.client;
	}

	private void reply(String answer) {
		this.out.print(REPLY + answer + "\n");
		this.out.flush();
	}

}
