package dev.lockstep.benchmark;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.testing.RedisBinary;
import dev.lockstep.testing.RedisServer;

/**
 * The {@code redis-server} the benchmark starts for itself on loopback, and the server's own
 * count of the commands it executed.
 */
final class BenchmarkRedis implements AutoCloseable {

	private final RedisServer server;

	private final Path binary;

	/** Our own administrative commands so far, which the server counts like any other. */
	private final AtomicLong ownCommands = new AtomicLong();

	private BenchmarkRedis(RedisServer server, Path binary) {
		this.server = server;
		this.binary = binary;
	}

	/** Starts the server found by {@link RedisBinary}: {@code REDIS_SERVER}, else the one on the PATH. */
	static BenchmarkRedis start() {
		return new BenchmarkRedis(RedisServer.start(), RedisBinary.find());
	}

	String host() {
		return this.server.host();
	}

	int port() {
		return this.server.port();
	}

	/** A Lettuce connection factory of its own to this server, started: each client measured has its own. */
	LettuceConnectionFactory connect() {
		return connect(host(), port());
	}

	/** A Lettuce connection factory of its own to {@code host:port}, started (in a worker process, which has only those). */
	static LettuceConnectionFactory connect(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** A Redisson client of its own to {@code host:port} (single server). */
	static RedissonClient redisson(String host, int port) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + host + ":" + port);
		return Redisson.create(config);
	}

	Path binary() {
		return this.binary;
	}

	/** The server's version, e.g. {@code 7.0.15}. */
	String version() {
		return infoField(call("INFO", "server"), "redis_version");
	}

	/**
	 * The commands the server has executed so far, by name, minus our own: every line of {@code
	 * INFO commandstats}, so commands run inside Lua scripts count one by one besides the EVALSHA
	 * that ran them. The reply to INFO does not count that INFO itself, only earlier ones.
	 */
	CommandCounts commandsExecuted() {
		long own = this.ownCommands.get();
		String stats = call("INFO", "commandstats");
		Map<String, Long> counts = new TreeMap<>();
		for (String line : stats.split("\r?\n")) {
			int colon = line.indexOf(':');
			int calls = line.indexOf("calls=");
			if (line.startsWith("cmdstat_") && colon > 0 && calls > colon) {
				int end = line.indexOf(',', calls);
				counts.put(line.substring("cmdstat_".length(), colon),
						Long.parseLong(line.substring(calls + "calls=".length(), end < 0 ? line.length() : end)));
			}
		}
		// our own commands are all INFO (version, counts, CPU time): leave them out
		counts.merge("info", -own, Long::sum);
		return new CommandCounts(counts);
	}

	/** The CPU time the server has used so far (user and system), in microseconds. */
	long cpuMicros() {
		String info = call("INFO", "cpu");
		return Math.round((Double.parseDouble(infoField(info, "used_cpu_user"))
				+ Double.parseDouble(infoField(info, "used_cpu_sys"))) * 1_000_000);
	}

	/** The memory the server's allocator holds for data and clients ({@code used_memory}), in bytes. */
	long usedMemory() {
		return Long.parseLong(infoField(call("INFO", "memory"), "used_memory"));
	}

	/** The keys in database 0 (from {@code INFO keyspace}, so that only INFO counts as our own command). */
	long keyCount() {
		String line = infoField(call("INFO", "keyspace"), "db0");
		if (line.equals("unknown")) {
			return 0;
		}
		// keys=123,expires=4,avg_ttl=0
		return Long.parseLong(line.substring("keys=".length(), line.indexOf(',')));
	}

	/**
	 * The keys in database 0 whose names contain {@code part}: a scenario's own, which the keys of
	 * an earlier scenario expiring meanwhile do not change (a scan: call it outside measured windows).
	 */
	long keyCount(String part) {
		long keys = 0;
		String cursor = "0";
		do {
			List<?> reply = (List<?>) this.server.call("SCAN", cursor, "MATCH", "*" + part + "*", "COUNT", "1000");
			this.ownCommands.incrementAndGet();
			cursor = String.valueOf(reply.get(0));
			keys += ((List<?>) reply.get(1)).size();
		}
		while (!cursor.equals("0"));
		return keys;
	}

	/** Empties the server between two measurements that must not see each other's keys. */
	void flushAll() {
		// not one of our own INFO commands (see commandsExecuted): it counts under its own name
		this.server.call("FLUSHALL");
	}

	private String call(String... command) {
		try {
			return String.valueOf(this.server.call(command));
		}
		finally {
			this.ownCommands.incrementAndGet();
		}
	}

	private static String infoField(String info, String field) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1).trim();
			}
		}
		return "unknown";
	}

	@Override
	public void close() {
		this.server.close();
	}

}
