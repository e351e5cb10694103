package dev.lockstep.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} child process on a free loopback port, with its own working directory
 * and log file. Stopped cleanly on {@link #close()}, killed with SIGKILL on {@link #kill()}, and
 * killed when the JVM exits in any case.
 */
public final class RedisServer implements AutoCloseable {

	private static final Reaper<RedisServer> RUNNING = new Reaper<>("redis-server-reaper", RedisServer::kill);

	private final Path binary;

	private final Path directory;

	private final List<String> extraArgs;

	private final int port;

	private final @Nullable String config;

	/** Whether a JVM shutdown hook kills it; off for a server its owner stops in its own shutdown. */
	private boolean reaped = true;

	private @Nullable Process process;

	private RedisServer(Path binary, Path directory, int port, List<String> extraArgs, @Nullable String config) {
		this.binary = binary;
		this.directory = directory;
		this.port = port;
		this.extraArgs = extraArgs;
		this.config = config;
	}

	/** Starts a server on a free port; {@code extraArgs} are redis-server options such as "--cluster-enabled", "yes". */
	public static RedisServer start(String... extraArgs) {
		return launchNew(null, extraArgs);
	}

	/**
	 * Starts a server on {@code port}, for a process that others must find at a known port; one
	 * attempt, failing with the server's log if the port is taken. The caller stops it: no JVM
	 * shutdown hook kills it, which would race the caller's own orderly shutdown.
	 */
	public static RedisServer startOnPort(int port, String... extraArgs) {
		try {
			RedisServer server = new RedisServer(RedisBinary.find(), Files.createTempDirectory("lockstep-redis-"), port,
					List.of(extraArgs), null);
			server.reaped = false;
			server.launch();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Whether a Redis answers PING on {@code host:port}. */
	public static boolean answersPing(String host, int port) {
		try (Resp resp = new Resp(host, port, 1000)) {
			return "PONG".equals(resp.call("PING"));
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * Starts a Sentinel on a free port that monitors {@code master} under {@code masterName}, with
	 * a quorum of one and a two-second down-after time.
	 */
	public static RedisServer startSentinel(String masterName, RedisServer master) {
		return startSentinel(masterName, master, 1, Duration.ofSeconds(2));
	}

	/**
	 * Starts a Sentinel on a free port that monitors {@code master} under {@code masterName}, with
	 * the given quorum and down-after time: several of these, started for one master, find each
	 * other through it and elect one of them to run a failover.
	 */
	public static RedisServer startSentinel(String masterName, RedisServer master, int quorum, Duration downAfter) {
		return launchNew("sentinel monitor " + masterName + " " + master.host() + " " + master.port() + " " + quorum + "\n"
				+ "sentinel down-after-milliseconds " + masterName + " " + downAfter.toMillis() + "\n"
				+ "sentinel failover-timeout " + masterName + " 10000\n", "--sentinel");
	}

	private static RedisServer launchNew(@Nullable String config, String... extraArgs) {
		Path binary = RedisBinary.find();
		IllegalStateException last = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			try {
				Path directory = Files.createTempDirectory("lockstep-redis-");
				RedisServer server = new RedisServer(binary, directory, freePort(), List.of(extraArgs), config);
				server.launch();
				return server;
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			catch (IllegalStateException ex) {
				// most likely another process took the port between our probe and the bind
				last = ex;
			}
		}
		throw last;
	}

	private void launch() {
		List<String> command = new ArrayList<>(List.of(this.binary.toString()));
		if (this.config != null) {
			// a Sentinel rewrites its configuration file, so it needs one of its own
			Path file = this.directory.resolve("redis.conf");
			try {
				if (!Files.exists(file)) {
					Files.writeString(file, this.config);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			command.add(file.toString());
		}
		command.addAll(List.of("--port", Integer.toString(this.port),
				"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no",
				"--dir", this.directory.toString(), "--logfile", logFile().toString()));
		command.addAll(this.extraArgs);
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("stdout.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start " + this.binary, ex);
		}
		if (this.reaped) {
			RUNNING.add(this);
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				RUNNING.remove(this);
				throw new IllegalStateException("redis-server exited with " + this.process.exitValue() + " on port "
						+ this.port + ":\n" + log());
			}
			try (Resp resp = new Resp("127.0.0.1", this.port, 1000)) {
				if ("PONG".equals(resp.call("PING"))) {
					return;
				}
			}
			catch (IOException ex) {
				Await.sleep(20);
			}
		}
		kill();
		throw new IllegalStateException("redis-server did not answer PING on port " + this.port + " within 15s:\n" + log());
	}

	public String host() {
		return "127.0.0.1";
	}

	public int port() {
		return this.port;
	}

	/** {@code redis://127.0.0.1:<port>} */
	public String url() {
		return "redis://" + host() + ":" + this.port;
	}

	public boolean isRunning() {
		return this.process != null && this.process.isAlive();
	}

	/** Runs one command (an administrative helper for tests; strings, numbers, lists or null). */
	public @Nullable Object call(String... command) {
		try (Resp resp = new Resp(host(), this.port, 10_000)) {
			return resp.call(command);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Redis on port " + this.port + " failed " + String.join(" ", command), ex);
		}
	}

	/** Kills the server with SIGKILL, as a crash would, and waits until it is gone. */
	public void kill() {
		Process current = this.process;
		if (current != null && current.isAlive()) {
			current.destroyForcibly();
			waitGone(current);
		}
		RUNNING.remove(this);
	}

	/** Starts the server again on the same port (empty: nothing is persisted). */
	public void restart() {
		kill();
		launch();
	}

	/** The end of the server's log file, for failure messages. */
	public String log() {
		try {
			List<String> lines = Files.exists(logFile()) ? Files.readAllLines(logFile(), StandardCharsets.UTF_8) : List.of();
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
		}
		catch (IOException ex) {
			return "(log unreadable: " + ex + ")";
		}
	}

	/** Shuts the server down without saving and removes its directory. */
	@Override
	public void close() {
		Process current = this.process;
		if (current != null && current.isAlive()) {
			try (Resp resp = new Resp(host(), this.port, 2000)) {
				resp.call("SHUTDOWN", "NOSAVE");
			}
			catch (IOException ex) {
				// SHUTDOWN closes the connection without a reply; anything else, the kill below settles
			}
			try {
				if (!current.waitFor(5, TimeUnit.SECONDS)) {
					current.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				current.destroyForcibly();
			}
			waitGone(current);
		}
		RUNNING.remove(this);
		deleteDirectory();
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

	private Path logFile() {
		return this.directory.resolve("redis.log");
	}

	private static void waitGone(Process process) {
		try {
			process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
	}

	/** Waits up to {@code timeout} until {@code condition} holds; false if it never did. */
	static boolean await(Duration timeout, java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (condition.getAsBoolean()) {
				return true;
			}
			Await.sleep(50);
		}
		return condition.getAsBoolean();
	}

	@Override
	public String toString() {
		return "redis-server on port " + this.port;
	}

}
