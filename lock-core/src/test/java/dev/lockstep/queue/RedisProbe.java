package dev.lockstep.queue;

import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Watches tasks run across JVMs, in Redis: a task of a group that starts while the group's counter
 * is taken is an overlap; one whose sequence number is not one more than the group's last is out of
 * order; every run is listed as {@code <task id>@<instance>}. Keys under {@code <prefix>probe:}.
 */
final class RedisProbe {

	private final StringRedisTemplate redis;

	private final String keys;

	RedisProbe(StringRedisTemplate redis, String prefix) {
		this.redis = redis;
		this.keys = prefix + "probe:";
	}

	void run(String id, String instance, String group, int sequence, long workMillis) {
		Long running = this.redis.opsForValue().increment(this.keys + "running:" + group);
		try {
			if (running == null || running != 1) {
				this.redis.opsForValue().increment(this.keys + "overlaps");
			}
			String last = this.redis.opsForValue().getAndSet(this.keys + "last:" + group, Integer.toString(sequence));
			if (sequence != ((last == null) ? 0 : Integer.parseInt(last) + 1)) {
				this.redis.opsForValue().increment(this.keys + "disorder");
			}
			this.redis.opsForList().rightPush(this.keys + "runs", id + "@" + instance);
			LockSupport.parkNanos(workMillis * 1_000_000L);
		}
		finally {
			this.redis.opsForValue().decrement(this.keys + "running:" + group);
		}
	}

	long overlaps() {
		return count("overlaps");
	}

	long disorder() {
		return count("disorder");
	}

	java.util.List<String> runs() {
		return this.redis.opsForList().range(this.keys + "runs", 0, -1);
	}

	private long count(String name) {
		String value = this.redis.opsForValue().get(this.keys + name);
		return (value == null) ? 0 : Long.parseLong(value);
	}

}
