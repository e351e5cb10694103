package dev.lockstep.console;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The instances' heartbeat records in Redis, under the key prefix (one command per key, so it
 * works the same on a Redis Cluster):
 * <ul>
 * <li>{@code console:instances}: sorted set, instance id -> its last heartbeat (ms); entries older
 * than {@link #KEPT} are dropped by the next heartbeat of any instance;</li>
 * <li>{@code console:instance:<id>}: hash, what the instance last reported (host, versions, its lock
 * service's id, the locks and permits it held, the queues it listens to, the jobs it guards and those of them it can run on
 * request), expiring after
 * {@link #KEPT}, so that the locks a dead instance left behind can still be shown;</li>
 * <li>{@code console:alive:<id>}: its lock service's id, expiring three heartbeats after the last:
 * the instance is alive while this key exists.</li>
 * </ul>
 */
final class InstanceRecords {

	/** How long the record of an instance that stopped is kept. */
	static final Duration KEPT = Duration.ofHours(1);

	private static final String LINE_SEPARATOR = "\n";

	/** Writes the record's fields and its expiry in one step (instance-record.lua). */
	private static final RedisScript<Long> WRITE = RedisScript.of(new ClassPathResource("dev/lockstep/console/instance-record.lua"),
			Long.class);

	private final StringRedisTemplate redis;

	private final String prefix;

	InstanceRecords(ConsoleRedis redis) {
		this.redis = redis.template();
		this.prefix = redis.base();
	}

	/** Writes {@code record} as the instance's latest heartbeat. */
	void write(InstanceRecord record, Duration aliveFor) {
		String key = this.prefix + "instance:" + record.id();
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("host", record.host());
		fields.put("version", record.version());
		fields.put("lockstep", record.lockstepVersion());
		fields.put("lockInstance", record.lockInstance());
		fields.put("heartbeat", Long.toString(record.heartbeatMillis()));
		fields.put("queues", String.join(LINE_SEPARATOR, record.queues()));
		fields.put("jobs", String.join(LINE_SEPARATOR, record.jobs()));
		fields.put("runnable", String.join(LINE_SEPARATOR, record.runnable()));
		fields.put("locks", String.join(LINE_SEPARATOR, record.locks().stream().map(InstanceRecords::line).toList()));
		// every field is written each time, in place, so a reader never sees the record missing
		List<String> arguments = new ArrayList<>();
		arguments.add(Long.toString(KEPT.toMillis()));
		fields.forEach((name, value) -> {
			arguments.add(name);
			arguments.add(value);
		});
		this.redis.execute(WRITE, List.of(key), arguments.toArray());
		this.redis.opsForValue().set(this.prefix + "alive:" + record.id(), record.lockInstance(), aliveFor);
		String index = this.prefix + "instances";
		this.redis.opsForZSet().add(index, record.id(), record.heartbeatMillis());
		this.redis.opsForZSet().removeRangeByScore(index, 0, record.heartbeatMillis() - KEPT.toMillis());
		this.redis.expire(index, KEPT);
	}

	/** Removes the instance's alive mark (it stops cleanly); its record stays until it expires. */
	void gone(String id) {
		this.redis.delete(this.prefix + "alive:" + id);
	}

	/** Every instance that reported within {@link #KEPT}, most recent heartbeat first. */
	List<InstanceRecord> all() {
		Set<String> ids = this.redis.opsForZSet().reverseRange(this.prefix + "instances", 0, 199);
		List<InstanceRecord> records = new ArrayList<>();
		if (ids == null) {
			return records;
		}
		for (String id : ids) {
			InstanceRecord record = read(id);
			if (record != null) {
				records.add(record);
			}
		}
		return records;
	}

	/** Whether an instance with a live heartbeat names {@code lockInstance} as its lock service's id. */
	boolean isAlive(String lockInstance) {
		Set<String> ids = this.redis.opsForZSet().range(this.prefix + "instances", 0, -1);
		if (ids == null) {
			return false;
		}
		for (String id : ids) {
			if (lockInstance.equals(this.redis.opsForValue().get(this.prefix + "alive:" + id))) {
				return true;
			}
		}
		return false;
	}

	private @Nullable InstanceRecord read(String id) {
		Map<Object, Object> fields = this.redis.opsForHash().entries(this.prefix + "instance:" + id);
		if (fields.isEmpty()) {
			return null;
		}
		String aliveAs = this.redis.opsForValue().get(this.prefix + "alive:" + id);
		String lockInstance = text(fields, "lockInstance");
		List<HeldByInstance> locks = new ArrayList<>();
		for (String line : lines(text(fields, "locks"))) {
			String[] parts = TabFields.split(line);
			// a record of an earlier build has no fifth part: locks only
			if (parts.length == 4 || parts.length == 5) {
				locks.add(new HeldByInstance(parts[0], parts[1], Long.parseLong(parts[2]), Long.parseLong(parts[3]),
						(parts.length == 5) ? Integer.parseInt(parts[4]) : 0));
			}
		}
		return new InstanceRecord(id, text(fields, "host"), text(fields, "version"), text(fields, "lockstep"), lockInstance,
				Long.parseLong(text(fields, "heartbeat")), lines(text(fields, "queues")), lines(text(fields, "jobs")),
				lines(text(fields, "runnable")), locks, lockInstance.equals(aliveAs));
	}

	private static String line(HeldByInstance lock) {
		// lock keys and thread names hold no tab or newline in practice; such characters are replaced
		return TabFields.join(lock.key(), lock.thread(), lock.fencingToken(), lock.heldSinceMillis(), lock.permits());
	}

	private static String text(Map<Object, Object> fields, String name) {
		Object value = fields.get(name);
		return (value != null) ? value.toString() : "";
	}

	private static List<String> lines(String text) {
		return text.isEmpty() ? List.of() : Arrays.asList(text.split(LINE_SEPARATOR));
	}

	/**
	 * One instance's heartbeat record.
	 * @param id its instance id ({@code lockstep.instance-id})
	 * @param host its host name
	 * @param version the application's version ({@code spring.application.version}, else {@code unknown})
	 * @param lockstepVersion Lockstep's version
	 * @param lockInstance its lock service's id, as lock holders show it ({@code <id>.<run>})
	 * @param heartbeatMillis when it wrote this record (its clock, ms since the epoch)
	 * @param queues the queues it runs tasks of
	 * @param jobs the jobs it guards
	 * @param runnable the jobs it can run on request ("run now": a bean method without arguments)
	 * @param locks the locks it held
	 * @param alive whether its heartbeat is live (read back; ignored when writing)
	 */
	record InstanceRecord(String id, String host, String version, String lockstepVersion, String lockInstance,
			long heartbeatMillis, List<String> queues, List<String> jobs, List<String> runnable, List<HeldByInstance> locks,
			boolean alive) {
	}

	/**
	 * A lock or permit an instance held when it wrote its record.
	 * @param permits 0 for a lock; for a permit, how many permits of the key its caller allows
	 */
	record HeldByInstance(String key, String thread, long fencingToken, long heldSinceMillis, int permits) {
	}

}
