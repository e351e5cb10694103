package dev.lockstep.console;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueueRegistry;

/**
 * An hour of each queue's counts, one sample a minute, in Redis: {@code console:history:queue:<name>},
 * a hash of minute (ms since the epoch) -> {@code queued running dead}, expiring an hour after its
 * last sample; each sample drops those older than an hour. The first instance to sample a minute
 * writes it ({@code HSETNX}), so a cluster writes each minute once. About 60 small fields: some
 * 2 KB of Redis memory per queue (listpack encoding).
 */
final class ConsoleHistory {

	static final Duration KEPT = Duration.ofHours(1);

	private static final long MINUTE = 60_000;

	private final StringRedisTemplate redis;

	private final String prefix;

	ConsoleHistory(ConsoleRedis redis) {
		this.redis = redis.template();
		this.prefix = redis.base() + "history:queue:";
	}

	void sample(SerialQueueRegistry queues, List<String> names) {
		long minute = System.currentTimeMillis() / MINUTE * MINUTE;
		for (String name : names) {
			String key = this.prefix + name;
			String field = Long.toString(minute);
			if (Boolean.TRUE.equals(this.redis.opsForHash().hasKey(key, field))) {
				continue;
			}
			QueueStats stats = queues.stats(name);
			if (Boolean.TRUE.equals(this.redis.opsForHash().putIfAbsent(key, field,
					stats.queued() + " " + stats.running() + " " + stats.dead()))) {
				List<Object> old = new ArrayList<>();
				for (Object existing : this.redis.opsForHash().keys(key)) {
					if (Long.parseLong(existing.toString()) <= minute - KEPT.toMillis()) {
						old.add(existing);
					}
				}
				if (!old.isEmpty()) {
					this.redis.opsForHash().delete(key, old.toArray());
				}
				this.redis.expire(key, KEPT);
			}
		}
	}

	/** The queue's samples of the last hour, oldest first. */
	List<Sample> queue(String name) {
		Map<Long, String> sorted = new TreeMap<>();
		this.redis.opsForHash().entries(this.prefix + name)
			.forEach((minute, counts) -> sorted.put(Long.parseLong(minute.toString()), counts.toString()));
		List<Sample> samples = new ArrayList<>();
		sorted.forEach((minute, counts) -> {
			String[] parts = counts.split(" ");
			samples.add(new Sample(minute, Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])));
		});
		return samples;
	}

	/**
	 * One minute's counts of a queue.
	 * @param minute the minute, ms since the epoch
	 * @param queued tasks queued
	 * @param running tasks running
	 * @param dead dead tasks
	 */
	record Sample(long minute, long queued, long running, long dead) {
	}

}
