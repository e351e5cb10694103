package dev.lockstep.sample;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.lockstep.testing.JavaProcess;

/** One instance of the packaged sample app, running as a child JVM on a port it chose itself. */
final class SampleInstance implements AutoCloseable {

	private static final Pattern TOMCAT_STARTED = Pattern.compile("Tomcat started on port (\\d+)");

	/** Small heap, quick start: the machines that run this test have two cores. */
	private static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	private final String id;

	private final JavaProcess process;

	private URI base = URI.create("http://127.0.0.1:0");

	private SampleInstance(String id, JavaProcess process) {
		this.id = id;
		this.process = process;
	}

	/** Starts the jar with {@code --sample.instance-id=id --server.port=0} followed by {@code args}. */
	static SampleInstance start(Path jar, String id, List<String> args) {
		return start(jar, id, List.of(), args);
	}

	/** As {@link #start(Path, String, List)}, the JVM also given {@code jvmOptions} ({@code -Dspring.aot.enabled=true}). */
	static SampleInstance start(Path jar, String id, List<String> jvmOptions, List<String> args) {
		List<String> all = new ArrayList<>(List.of("--sample.instance-id=" + id, "--server.port=0"));
		all.addAll(args);
		List<String> options = new ArrayList<>(JVM_OPTIONS);
		options.addAll(jvmOptions);
		return new SampleInstance(id, JavaProcess.startJar("sample-" + id, jar, options, all.toArray(String[]::new)));
	}

	/** Waits until the application has started and learns its port. */
	void awaitStarted(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		Matcher port = TOMCAT_STARTED.matcher(this.process.awaitLine((line) -> TOMCAT_STARTED.matcher(line).find(), timeout));
		port.find();
		this.base = URI.create("http://127.0.0.1:" + port.group(1));
		this.process.awaitLine("Started SampleApplication", Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
	}

	String id() {
		return this.id;
	}

	URI uri(String pathAndQuery) {
		return this.base.resolve(pathAndQuery);
	}

	/** The end of the instance's output, for failure messages. */
	String output() {
		return this.process.output();
	}

	/** Kills the instance with SIGKILL, as a crash would: no shutdown, nothing given back. */
	void kill() {
		this.process.kill();
	}

	/** Stops the instance (SIGTERM, SIGKILL after 20s) and keeps its whole output in {@code logDirectory}. */
	void stop(Path logDirectory) throws IOException {
		// Not JavaProcess.stop(): Process.destroy() also closes the output pipe, losing the shutdown log.
		ProcessHandle.of(this.process.pid()).ifPresent(ProcessHandle::destroy);
		try {
			this.process.waitFor(Duration.ofSeconds(20));
		}
		catch (IllegalStateException ex) {
			this.process.kill();
		}
		Files.createDirectories(logDirectory);
		Files.write(logDirectory.resolve("sample-" + this.id + ".log"), linesOnceDrained());
	}

	/** The reader thread may still be draining the pipe after the process exited: wait (up to 2s) until it stops growing. */
	private List<String> linesOnceDrained() {
		List<String> lines = this.process.lines();
		for (int i = 0; i < 20; i++) {
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
			List<String> now = this.process.lines();
			if (now.size() == lines.size()) {
				break;
			}
			lines = now;
		}
		return lines;
	}

	@Override
	public void close() {
		this.process.stop(Duration.ofSeconds(20));
	}

	@Override
	public String toString() {
		return "instance " + this.id + " at " + this.base;
	}

}
