package dev.lockstep.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.console.ActivityListener.Drained;

/**
 * An hour of what the instances did, per minute, summed over the cluster in Redis: each heartbeat
 * adds this instance's counts since the last one ({@link ActivityListener}) with {@code HINCRBY}
 * into one hash per subject, field {@code <minute>:<what>}; a hash expires an hour after its last
 * write, and an instance drops its fields older than an hour the first time it writes it in a
 * minute. The hashes (under the key prefix):
 * <ul>
 * <li>{@code console:history:tasks:<queue>}: {@code <minute>:done}, {@code <minute>:failed} (tasks
 * ended), so at most 120 fields;</li>
 * <li>{@code console:history:lock-wait}: {@code <minute>:<bucket>}, the number of lock acquisitions
 * whose wait fell in that bucket ({@link ActivityListener#WAIT_BOUNDS}), so at most 960 fields;</li>
 * <li>{@code console:history:job:<job>}: {@code <minute>:n}, {@code <minute>:ms} (runs, their total
 * time), so at most 120 fields.</li>
 * </ul>
 */
final class ActivityHistory {

	private static final long MINUTE = 60_000;

	private static final long KEPT = ConsoleHistory.KEPT.toMillis();

	private static final double[] PERCENTILES = { 0.5, 0.9, 0.99 };

	private final StringRedisTemplate redis;

	private final String prefix;

	/** The minute this instance last dropped old fields of a hash. */
	private final Map<String, Long> trimmed = new ConcurrentHashMap<>();

	ActivityHistory(ConsoleRedis redis) {
		this.redis = redis.template();
		this.prefix = redis.base() + "history:";
	}

	/** Adds the counts to the current minute. */
	void add(List<Drained> counts, long nowMillis) {
		long minute = nowMillis / MINUTE * MINUTE;
		for (Drained drained : counts) {
			String key = key(drained.counted().kind(), drained.counted().name());
			this.redis.opsForHash().increment(key, minute + ":" + drained.counted().field(), drained.count());
			if (!Long.valueOf(minute).equals(this.trimmed.put(key, minute))) {
				this.redis.expire(key, ConsoleHistory.KEPT);
				List<Object> old = new ArrayList<>();
				for (Object field : this.redis.opsForHash().keys(key)) {
					if (minuteOf(field) <= minute - KEPT) {
						old.add(field);
					}
				}
				if (!old.isEmpty()) {
					this.redis.opsForHash().delete(key, old.toArray());
				}
			}
		}
	}

	/** The queue's tasks ended per minute over the last hour, oldest first. */
	List<TaskRate> tasks(String queue, long nowMillis) {
		List<TaskRate> rates = new ArrayList<>();
		read(key(ActivityListener.Kind.TASKS, queue), nowMillis).forEach((minute, fields) -> {
			long done = fields.getOrDefault("done", 0L);
			long failed = fields.getOrDefault("failed", 0L);
			rates.add(new TaskRate(minute, done, failed, round((done + failed) / seconds(minute, nowMillis))));
		});
		return rates;
	}

	/** Lock waits per minute over the last hour, all keys of the cluster together, oldest first. */
	List<LockWaits> lockWaits(long nowMillis) {
		List<LockWaits> waits = new ArrayList<>();
		read(key(ActivityListener.Kind.LOCK_WAIT, ""), nowMillis).forEach((minute, fields) -> {
			long[] buckets = new long[ActivityListener.WAIT_BOUNDS.length + 1];
			long total = 0;
			for (Map.Entry<String, Long> field : fields.entrySet()) {
				int bucket = Integer.parseInt(field.getKey());
				if (bucket >= 0 && bucket < buckets.length) {
					buckets[bucket] += field.getValue();
					total += field.getValue();
				}
			}
			if (total > 0) {
				waits.add(new LockWaits(minute, total, percentile(buckets, total, PERCENTILES[0]),
						percentile(buckets, total, PERCENTILES[1]), percentile(buckets, total, PERCENTILES[2])));
			}
		});
		return waits;
	}

	/** The job's runs per minute over the last hour (on every instance), oldest first. */
	List<JobRuns> jobs(String job, long nowMillis) {
		List<JobRuns> runs = new ArrayList<>();
		read(key(ActivityListener.Kind.JOB, job), nowMillis).forEach((minute, fields) -> {
			long count = fields.getOrDefault("n", 0L);
			if (count > 0) {
				runs.add(new JobRuns(minute, count, fields.getOrDefault("ms", 0L) / count));
			}
		});
		return runs;
	}

	/**
	 * The upper bound (ms) of the bucket that holds the {@code q} quantile; waits past the last
	 * bound show as that bound.
	 */
	static long percentile(long[] buckets, long total, double q) {
		long rank = (long) Math.ceil(q * total);
		long seen = 0;
		long[] bounds = ActivityListener.WAIT_BOUNDS;
		for (int i = 0; i < buckets.length; i++) {
			seen += buckets[i];
			if (seen >= rank) {
				return bounds[Math.min(i, bounds.length - 1)];
			}
		}
		return bounds[bounds.length - 1];
	}

	private Map<Long, Map<String, Long>> read(String key, long nowMillis) {
		Map<Long, Map<String, Long>> minutes = new TreeMap<>();
		this.redis.opsForHash().entries(key).forEach((field, value) -> {
			long minute = minuteOf(field);
			if (minute > nowMillis - KEPT) {
				String name = field.toString().substring(field.toString().indexOf(':') + 1);
				minutes.computeIfAbsent(minute, (m) -> new TreeMap<>()).merge(name, Long.parseLong(value.toString()), Long::sum);
			}
		});
		return minutes;
	}

	private String key(ActivityListener.Kind kind, String name) {
		return switch (kind) {
			case TASKS -> this.prefix + "tasks:" + name;
			case LOCK_WAIT -> this.prefix + "lock-wait";
			case JOB -> this.prefix + "job:" + name;
		};
	}

	private static long minuteOf(Object field) {
		String text = field.toString();
		int colon = text.indexOf(':');
		try {
			return Long.parseLong((colon < 0) ? text : text.substring(0, colon));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/** The seconds a minute's counts cover: the whole minute, or the part of the current one gone by. */
	private static double seconds(long minute, long nowMillis) {
		return Math.max(1, Math.min(MINUTE, nowMillis - minute)) / 1000.0;
	}

	private static double round(double value) {
		return Math.round(value * 100) / 100.0;
	}

	/**
	 * One minute of a queue's tasks, summed over the cluster.
	 * @param minute the minute, ms since the epoch
	 * @param done tasks that ended done
	 * @param failed runs that threw (retried or dead)
	 * @param perSecond tasks ended per second over the minute (the part gone by, for the current one)
	 */
	record TaskRate(long minute, long done, long failed, double perSecond) {
	}

	/**
	 * One minute of lock waits (acquired locks), the cluster's keys together; the percentiles are
	 * bucket bounds, in ms.
	 */
	record LockWaits(long minute, long acquired, long p50, long p90, long p99) {
	}

	/** One minute of a guarded job's runs, on any instance: how many, and their mean time in ms. */
	record JobRuns(long minute, long runs, long meanMillis) {
	}

}
