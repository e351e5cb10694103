package dev.lockstep.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A child JVM running a worker ({@link SerialGroupWorker}, {@link QueueWorker}) on this JVM's class
 * path, and the means to send it commands and wait for its answers (see {@link WorkerConsole}). Its standard error goes to this JVM's; lines on its
 * standard output that are not answers go there too.
 */
final class GroupWorkerProcess implements AutoCloseable {

	/** Stands for the end of the worker's output in the queue of answers. */
	private static final String EXITED = "\u0000exited";

	private final String name;

	private final Process process;

	private final Writer commands;

	private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

	private GroupWorkerProcess(String name, Process process) {
		this.name = name;
		this.process = process;
		this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		Thread reader = new Thread(this::readAnswers, name + "-output");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts {@code mainClass}, which takes commands through a {@link WorkerConsole}, with the Redis at
	 * {@code redis} and its index {@code jvm} among the workers as arguments.
	 */
	static GroupWorkerProcess start(String name, Class<?> mainClass, BenchmarkRedis redis, int jvm) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add("-Xms512m");
		command.add("-Xmx512m");
		// e.g. a profiler: BENCHMARK_WORKER_JVM_OPTIONS="-XX:StartFlightRecording=filename=/tmp/worker.jfr"
		String options = System.getenv("BENCHMARK_WORKER_JVM_OPTIONS");
		if (options != null && !options.isBlank()) {
			command.addAll(List.of(options.trim().split("\\s+")));
		}
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(mainClass.getName());
		command.add(redis.host());
		command.add(Integer.toString(redis.port()));
		command.add(Integer.toString(jvm));
		try {
			Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
			return new GroupWorkerProcess(name, process);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start " + name, ex);
		}
	}

	void send(String command) {
		try {
			this.commands.write(command + "\n");
			this.commands.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(this.name + " does not take commands any more", ex);
		}
	}

	/** Sends {@code command} to every worker, then waits for each one's answer starting with {@code expected}. */
	static void sendAll(List<GroupWorkerProcess> workers, String command, String expected, Duration timeout)
			throws InterruptedException {
		workers.forEach((worker) -> worker.send(command));
		for (GroupWorkerProcess worker : workers) {
			worker.await(expected, timeout);
		}
	}

	/** Waits for the answer starting with {@code expected}. */
	String await(String expected, Duration timeout) throws InterruptedException {
		return await(expected, (line) -> {
			throw new IllegalStateException(this.name + " answered '" + line + "' instead of '" + expected + "'");
		}, timeout);
	}

	/**
	 * Waits for the answer starting with {@code expected} and returns the rest of it; answers
	 * before it go to {@code others}.
	 */
	String await(String expected, Consumer<String> others, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String answer = this.answers.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			if (answer == null) {
				throw new IllegalStateException(this.name + " did not answer '" + expected + "' within " + timeout);
			}
			if (answer.equals(EXITED)) {
				throw new IllegalStateException(this.name + " exited while '" + expected + "' was awaited");
			}
			if (answer.startsWith("failed ")) {
				throw new IllegalStateException(this.name + ": " + answer.substring("failed ".length()));
			}
			if (answer.equals(expected) || answer.startsWith(expected + " ")) {
				return answer.substring(expected.length()).trim();
			}
			others.accept(answer);
		}
	}

	private void readAnswers() {
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = output.readLine(); line != null; line = output.readLine()) {
				if (line.startsWith(WorkerConsole.REPLY)) {
					this.answers.add(line.substring(WorkerConsole.REPLY.length()));
				}
				else {
					System.err.println("[" + this.name + "] " + line);
				}
			}
		}
		catch (IOException ex) {
			// the worker has gone
		}
		finally {
			this.answers.add(EXITED);
		}
	}

	/** Ends the worker: closing its standard input makes it exit; it is killed if it does not. */
	@Override
	public void close() {
		try {
			this.commands.close();
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (IOException ex) {
			this.process.destroyForcibly();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
	}

}
