package dev.lockstep.benchmark;

import java.lang.management.ManagementFactory;
import java.util.List;

import com.sun.management.OperatingSystemMXBean;
import org.jspecify.annotations.Nullable;

/**
 * The main class of a child JVM of scenario E: one application instance that submits its share
 * of each job. It takes commands and answers through a {@link WorkerConsole}:
 * <ul>
 * <li>{@code open <library>}: connects a client of the library; {@code opened}</li>
 * <li>{@code job <job line>}: starts the worker threads of this JVM's share, waiting; {@code ready}</li>
 * <li>{@code go}: lets them run; a {@code task <run>} line per task run, then {@code done <start micros>
 * <CPU micros>}: when the job started, and the CPU time this JVM used meanwhile</li>
 * <li>{@code close}: closes the client; {@code closed}</li>
 * </ul>
 */
public final class SerialGroupWorker {

	private final String host;

	private final int port;

	private final int jvm;

	private final WorkerConsole console;

	private final OperatingSystemMXBean cpu = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

	private @Nullable SerialGroupClient client;

	private @Nullable GroupJobShare share;

	private SerialGroupWorker(String host, int port, int jvm, WorkerConsole console) {
		this.host = host;
		this.port = port;
		this.jvm = jvm;
		this.console = console;
	}

	/** Arguments: Redis host, Redis port, this JVM's index among the submitting JVMs (from 0). */
	public static void main(String[] args) throws Exception {
		WorkerConsole console = new WorkerConsole();
		SerialGroupWorker worker = new SerialGroupWorker(args[0], Integer.parseInt(args[1]), Integer.parseInt(args[2]),
				console);
		console.serve(worker::handle);
	}

	private void handle(String line) throws Exception {
		String[] command = line.split(" ", 2);
		switch (command[0]) {
			case "open" -> {
				this.client = SerialGroupClient.connect(Library.byId(command[1]), this.host, this.port);
				this.console.answer("opened");
			}
			case "job" -> {
				this.share = new GroupJobShare(GroupJob.parse(command[1]), this.jvm, client());
				this.console.answer("ready");
			}
			case "go" -> run();
			case "close" -> {
				SerialGroupClient open = this.client;
				this.client = null;
				if (open != null) {
					open.close();
				}
				this.console.answer("closed");
			}
			default -> throw new IllegalArgumentException("Unknown command '" + line + "'");
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
			this.console.line("task " + run.toLine());
		}
		this.console.answer("done " + start + " " + cpuMicros);
	}

	private SerialGroupClient client() {
		if (this.client == null) {
			throw new IllegalStateException("No client open");
		}
		return this.client;
	}

}
