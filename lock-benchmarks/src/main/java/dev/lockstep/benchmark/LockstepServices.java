package dev.lockstep.benchmark;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.lock.RedisLockService;
import dev.lockstep.queue.RedisSerialQueue;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * Lockstep's services as the benchmark's clients and workers make them: on the connection factory
 * they are given, every key under {@link #KEY_PREFIX}.
 */
final class LockstepServices {

	/** The prefix of every key Lockstep writes in the benchmark (and field report 1's queue beside it). */
	static final String KEY_PREFIX = "bench:";

	/** The queues' payload mapper, on the submitting side and in the workers. */
	static final JsonMapper JSON = JsonMapper.builder().build();

	private LockstepServices() {
	}

	/** A lock service, started. */
	static RedisLockService locks(LettuceConnectionFactory connections) {
		RedisLockService locks = new RedisLockService(connections);
		locks.setKeyPrefix(KEY_PREFIX);
		locks.start();
		return locks;
	}

	static RedisRateLimiter rateLimiter(LettuceConnectionFactory connections) {
		RedisRateLimiter limiter = new RedisRateLimiter(connections);
		limiter.setKeyPrefix(KEY_PREFIX);
		return limiter;
	}

	/** A serial queue, not started: to submit, or to listen after more settings. */
	static RedisSerialQueue queue(LettuceConnectionFactory connections) {
		RedisSerialQueue queue = new RedisSerialQueue(connections, JSON);
		queue.setKeyPrefix(KEY_PREFIX);
		return queue;
	}

}
