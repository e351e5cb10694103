package dev.lockstep.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What several processes did, in one list in Redis: each event stamped with the Redis server's
 * clock (one clock for every process, in microseconds) and kept in the order Redis received it.
 * Child JVMs {@link #append} their events, the test {@link #events() reads} them back and judges
 * them; {@link #set} and {@link #take} hand out budgets (how many runs a job may start), so a test
 * can arm a job in running processes. Speaks plain RESP over a socket of its own, so recording
 * goes through neither the Redis client nor the locks under test. Safe for concurrent use.
 */
public final class EventLog implements AutoCloseable {

	/** event-append.lua, read once: appends an event stamped with the server's clock. */
	private static final String APPEND = script("event-append.lua");

	private final String host;

	private final int port;

	private final String key;

	private @Nullable Resp connection;

	private EventLog(String host, int port, String key) {
		this.host = host;
		this.port = port;
		this.key = key;
	}

	/** The log in list {@code key} of the Redis at {@code host:port}; connects on first use. */
	public static EventLog open(String host, int port, String key) {
		return new EventLog(host, port, key);
	}

	/**
	 * Appends an event of {@code fields} (no spaces in them), stamped with the Redis server's clock.
	 * @return the stamp, microseconds since the epoch on the Redis server's clock
	 */
	public long append(String... fields) {
		for (String field : fields) {
			if (field.isEmpty() || field.contains(" ")) {
				throw new IllegalArgumentException("Event fields must be non-empty and without spaces: " + Arrays.toString(fields));
			}
		}
		return Long.parseLong((String) call("EVAL", APPEND, "1", this.key, String.join(" ", fields)));
	}

	/** Every event appended so far, oldest first. */
	public List<Event> events() {
		List<Event> events = new ArrayList<>();
		for (Object line : (List<?>) call("LRANGE", this.key, "0", "-1")) {
			String[] parts = ((String) line).split(" ");
			events.add(new Event(Long.parseLong(parts[0]), List.of(parts).subList(1, parts.length)));
		}
		return events;
	}

	/** Sets the budget {@code name} (a key beside the log's) to {@code runs}. */
	public void set(String name, long runs) {
		call("SET", this.key + ":" + name, Long.toString(runs));
	}

	/**
	 * Takes one from the budget {@code name}.
	 * @return what the budget holds after this take: 0 or more if one was left to take, negative if not
	 * (a budget never set counts as 0)
	 */
	public long take(String name) {
		return (Long) call("DECR", this.key + ":" + name);
	}

	private synchronized Object call(String... command) {
		try {
			if (this.connection == null) {
				this.connection = new Resp(this.host, this.port, 10_000);
			}
			Object reply = this.connection.call(command);
			if (reply == null) {
				throw new IllegalStateException("No reply from Redis to " + command[0] + " on " + this.key);
			}
			return reply;
		}
		catch (IOException ex) {
			closeQuietly();
			throw new UncheckedIOException("Event log " + this.key + " on " + this.host + ":" + this.port, ex);
		}
	}

	@Override
	public synchronized void close() {
		closeQuietly();
	}

	private void closeQuietly() {
		if (this.connection != null) {
			try {
				this.connection.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
			this.connection = null;
		}
	}

	@Override
	public String toString() {
		return "EventLog[" + this.key + " on " + this.host + ":" + this.port + "]";
	}

	/**
	 * One event.
	 * @param micros when Redis recorded it, microseconds since the epoch on the Redis server's clock
	 * @param fields what the process appended
	 */
	public record Event(long micros, List<String> fields) {

		/** Field {@code index}. */
		public String field(int index) {
			return this.fields.get(index);
		}

		/** When Redis recorded it, in milliseconds since the epoch on the Redis server's clock. */
		public long millis() {
			return this.micros / 1000;
		}

		@Override
		public String toString() {
			return this.micros + " " + String.join(" ", this.fields);
		}

	}

	private static String script(String name) {
		try (InputStream in = EventLog.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + name + " is missing next to " + EventLog.class.getName());
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read Lua script " + name, ex);
		}
	}

}
