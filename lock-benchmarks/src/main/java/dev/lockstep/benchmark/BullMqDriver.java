package dev.lockstep.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * BullMQ, the Node queue, driven through the small script {@code bullmq/driver.mjs} of this
 * module's resources: copied with its {@code package.json} to {@code target/bullmq-driver} and
 * installed there with {@code npm install} the first time (Node and npm must be on the PATH).
 */
final class BullMqDriver {

	private static final Path DIRECTORY = Path.of("target", "bullmq-driver").toAbsolutePath();

	private final BenchmarkRedis redis;

	BullMqDriver(BenchmarkRedis redis) {
		this.redis = redis;
		install();
	}

	/** Adds {@code tasks} jobs of no work over {@code groups} group numbers (BullMQ has no groups: data only). */
	void fill(String queue, int tasks, int groups) throws IOException, InterruptedException {
		Process fill = node("fill", queue, Integer.toString(tasks), Integer.toString(groups));
		String line = readLine(new BufferedReader(new InputStreamReader(fill.getInputStream(), StandardCharsets.UTF_8)),
				Duration.ofMinutes(10));
		if (!fill.waitFor(1, TimeUnit.MINUTES) || fill.exitValue() != 0 || !"filled".equals(line)) {
			throw new IllegalStateException("BullMQ's fill of " + tasks + " jobs failed: " + line);
		}
	}

	/** Starts one worker process of {@code concurrency}; it has connected when this returns. */
	Worker startWorker(String queue, int concurrency) throws IOException {
		Process process = node("work", queue, Integer.toString(concurrency));
		Worker worker = new Worker(process, new BufferedReader(new InputStreamReader(process.getInputStream(),
				StandardCharsets.UTF_8)));
		String line = readLine(worker.output(), Duration.ofMinutes(1));
		if (!"ready".equals(line)) {
			process.destroyForcibly();
			throw new IllegalStateException("A BullMQ worker did not start: " + line);
		}
		return worker;
	}

	/** A worker process and its standard output. */
	record Worker(Process process, BufferedReader output) {

		/** Stops the worker (its standard input ends); the jobs it ran. */
		long stop() throws IOException, InterruptedException {
			this.process.getOutputStream().close();
			String line = readLine(this.output, Duration.ofMinutes(1));
			this.process.waitFor(30, TimeUnit.SECONDS);
			this.process.destroyForcibly();
			if (line == null || !line.startsWith("ran ")) {
				throw new IllegalStateException("A BullMQ worker did not stop cleanly: " + line);
			}
			return Long.parseLong(line.substring("ran ".length()));
		}

	}

	private Process node(String mode, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of("node", "driver.mjs", mode, this.redis.host(),
				Integer.toString(this.redis.port())));
		command.addAll(List.of(args));
		return new ProcessBuilder(command).directory(DIRECTORY.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
	}

	/** The next line of a process's output, or null when none came within {@code limit} (the process hangs). */
	static @Nullable String readLine(BufferedReader output, Duration limit) {
		CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
			try {
				return output.readLine();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		});
		try {
			return line.get(limit.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | TimeoutException ex) {
			return null;
		}
	}

	private static synchronized void install() {
		try {
			Files.createDirectories(DIRECTORY);
			for (String file : List.of("package.json", "driver.mjs")) {
				try (InputStream in = BullMqDriver.class.getResourceAsStream("bullmq/" + file)) {
					if (in == null) {
						throw new IllegalStateException("bullmq/" + file + " is missing from the class path");
					}
					Files.copy(in, DIRECTORY.resolve(file), StandardCopyOption.REPLACE_EXISTING);
				}
			}
			if (Files.isDirectory(DIRECTORY.resolve("node_modules/bullmq"))) {
				return;
			}
			Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
				.directory(DIRECTORY.toFile()).inheritIO().start();
			if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
				throw new IllegalStateException("npm install of BullMQ failed in " + DIRECTORY);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot install BullMQ's driver in " + DIRECTORY
					+ " (are node and npm on the PATH?)", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while installing BullMQ", ex);
		}
	}

}
