package dev.lockstep.sample.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.testing.RedisBinary;

/**
 * A {@code redis-server} child process on a fixed loopback port, from the binary shipped in the
 * embedded-redis jar, with its own temporary working directory.
 */
final class EmbeddedRedisServer {

	static final String HOST = "127.0.0.1";

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedRedisServer.class);

	private final int port;

	private final Path directory;

	private final Process process;

	private EmbeddedRedisServer(int port, Path directory, Process process) {
		this.port = port;
		this.directory = directory;
		this.process = process;
	}

	/** Starts redis-server on {@code port} and waits until it answers PING. */
	static EmbeddedRedisServer start(int port) {
		if (answersPing(port)) {
			throw new EmbeddedRedisException("No Redis is configured, and a Redis already answers on " + HOST + ":" + port
					+ " (sample.embedded-redis.port), probably the embedded Redis of another instance of the sample.",
					"Share that Redis with --spring.data.redis.port=" + port + ", or give this instance its own with "
							+ "--sample.embedded-redis.port=<a free port>.", null);
		}
		Path binary;
		try {
			binary = RedisBinary.find();
		}
		catch (IllegalStateException ex) {
			throw new EmbeddedRedisException("No Redis is configured, and no redis-server could be found to start one: "
					+ ex.getMessage(), "Point the sample at a running Redis with --spring.data.redis.host and "
							+ "--spring.data.redis.port, or set REDIS_SERVER=/path/to/redis-server.", ex);
		}
		try {
			Path directory = Files.createTempDirectory("lockstep-sample-redis-");
			Process process = new ProcessBuilder(binary.toString(), "--port", Integer.toString(port), "--bind", HOST,
					"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", directory.toString(),
					"--logfile", directory.resolve("redis.log").toString())
				.redirectErrorStream(true)
				.redirectOutput(directory.resolve("stdout.log").toFile())
				.start();
			EmbeddedRedisServer server = new EmbeddedRedisServer(port, directory, process);
			server.awaitPing();
			logger.info("No Redis is configured, so the sample started its own: {} on {}:{}. Point a second instance "
					+ "at it with --spring.data.redis.port={}", binary, HOST, port, port);
			return server;
		}
		catch (IOException ex) {
			throw new EmbeddedRedisException("Cannot start " + binary + ": " + ex.getMessage(),
					"Point the sample at a running Redis with --spring.data.redis.host and --spring.data.redis.port.", ex);
		}
	}

	private void awaitPing() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				String log = log();
				deleteDirectory();
				throw new EmbeddedRedisException("The embedded redis-server exited with " + this.process.exitValue()
						+ " on port " + this.port + ":\n" + log, "Choose another port with --sample.embedded-redis.port, "
								+ "or point the sample at a running Redis with --spring.data.redis.host and --spring.data.redis.port.", null);
			}
			if (answersPing(this.port)) {
				return;
			}
			pause(50);
		}
		String log = log();
		stop();
		throw new EmbeddedRedisException("The embedded redis-server did not answer on port " + this.port + " within 15s:\n" + log,
				"Point the sample at a running Redis with --spring.data.redis.host and --spring.data.redis.port.", null);
	}

	/** Sends an inline PING; true if the answer is PONG. */
	static boolean answersPing(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, port), 500);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			return new String(in.readNBytes(7), StandardCharsets.US_ASCII).equals("+PONG\r\n");
		}
		catch (IOException ex) {
			return false;
		}
	}

	int port() {
		return this.port;
	}

	/** Stops the server (SIGTERM, then SIGKILL after 10s) and removes its directory; does nothing the second time. */
	synchronized void stop() {
		if (this.process.isAlive()) {
			this.process.destroy();
			try {
				if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
					this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.process.destroyForcibly();
			}
			logger.info("Stopped the embedded Redis on {}:{}", HOST, this.port);
		}
		deleteDirectory();
	}

	private String log() {
		try {
			Path log = this.directory.resolve("redis.log");
			List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
		}
		catch (IOException ex) {
			return "(log unreadable: " + ex + ")";
		}
	}

	private void deleteDirectory() {
		try (var files = Files.walk(this.directory)) {
			List<Path> paths = new ArrayList<>(files.toList());
			Collections.reverse(paths);
			for (Path path : paths) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException ex) {
			// a leftover temporary directory is harmless
		}
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting the embedded Redis", ex);
		}
	}

}
