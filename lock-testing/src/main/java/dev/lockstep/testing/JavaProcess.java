package dev.lockstep.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM whose output is collected line by line, for tests that need real processes:
 * several instances at once, or one killed with SIGKILL. Killed when the parent JVM exits.
 */
public final class JavaProcess implements AutoCloseable {

	private static final Reaper<JavaProcess> RUNNING = new Reaper<>("java-process-reaper", JavaProcess::kill);

	private final String name;

	private final Process process;

	private final List<String> lines = new ArrayList<>();

	private final Thread reader;

	private JavaProcess(String name, Process process) {
		this.name = name;
		this.process = process;
		this.reader = new Thread(this::collect, name + "-output");
		this.reader.setDaemon(true);
		this.reader.start();
		RUNNING.add(this);
	}

	/** Runs {@code mainClass} with this JVM's class path. */
	public static JavaProcess start(String name, Class<?> mainClass, List<String> jvmOptions, String... args) {
		List<String> command = new ArrayList<>();
		command.add(javaExecutable());
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(mainClass.getName());
		command.addAll(List.of(args));
		return launch(name, command);
	}

	/** Runs an executable jar. */
	public static JavaProcess startJar(String name, Path jar, List<String> jvmOptions, String... args) {
		List<String> command = new ArrayList<>();
		command.add(javaExecutable());
		command.addAll(jvmOptions);
		command.add("-jar");
		command.add(jar.toString());
		command.addAll(List.of(args));
		return launch(name, command);
	}

	private static JavaProcess launch(String name, List<String> command) {
		try {
			return new JavaProcess(name, new ProcessBuilder(command).redirectErrorStream(true).start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start " + name, ex);
		}
	}

	private static String javaExecutable() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	private void collect() {
		try (BufferedReader reader = new BufferedReader(new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				synchronized (this.lines) {
					this.lines.add(line);
					this.lines.notifyAll();
				}
			}
		}
		catch (IOException ex) {
			// the process is gone
		}
		finally {
			synchronized (this.lines) {
				this.lines.notifyAll();
			}
		}
	}

	/** The first output line matching {@code condition}, waiting up to {@code timeout}. */
	public String awaitLine(Predicate<String> condition, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		boolean exited = false;
		int checked = 0;
		synchronized (this.lines) {
			while (true) {
				for (; checked < this.lines.size(); checked++) {
					if (condition.test(this.lines.get(checked))) {
						return this.lines.get(checked);
					}
				}
				long left = deadline - System.nanoTime();
				if (!exited && !this.process.isAlive() && !this.reader.isAlive()) {
					// the reader has taken every line the process printed: one more pass, then give up
					exited = true;
					continue;
				}
				if (left <= 0 || exited) {
					throw new IllegalStateException(this.name + (this.process.isAlive() ? " printed no matching line within "
							+ timeout : " exited (" + this.process.exitValue() + ") without a matching line") + ". Output:\n" + output());
				}
				try {
					this.lines.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted", ex);
				}
			}
		}
	}

	/** The first line containing {@code text}. */
	public String awaitLine(String text, Duration timeout) {
		return awaitLine((line) -> line.contains(text), timeout);
	}

	/** Everything printed so far. */
	public List<String> lines() {
		synchronized (this.lines) {
			return List.copyOf(this.lines);
		}
	}

	/** The last 80 lines printed, for failure messages. */
	public String output() {
		List<String> all = lines();
		return String.join("\n", all.subList(Math.max(0, all.size() - 80), all.size()));
	}

	/** Waits for the process to exit; its exit code. */
	public int waitFor(Duration timeout) {
		try {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(this.name + " did not exit within " + timeout + ". Output:\n" + output());
			}
			RUNNING.remove(this);
			return this.process.exitValue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	public boolean isAlive() {
		return this.process.isAlive();
	}

	public long pid() {
		return this.process.pid();
	}

	/** SIGKILL, as a crash: no shutdown hooks, nothing released. */
	public void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		RUNNING.remove(this);
	}

	/** SIGSTOP: the process stands still (a long GC pause, a stalled VM) until {@link #resume()}. */
	public void pause() {
		signal("STOP");
	}

	/** SIGCONT: a paused process goes on where it stood. */
	public void resume() {
		signal("CONT");
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("kill -" + signal + " " + pid(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted sending SIG" + signal + " to " + this, ex);
		}
	}

	/** Asks the process to stop (SIGTERM) and waits for it, killing it after {@code timeout}. */
	public void stop(Duration timeout) {
		// through the handle: Process.destroy() also closes the pipe, and the shutdown output with it
		this.process.toHandle().destroy();
		try {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				kill();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			kill();
		}
		RUNNING.remove(this);
	}

	@Override
	public void close() {
		kill();
	}

	@Override
	public String toString() {
		return this.name + " (pid " + this.process.pid() + ")";
	}

}
