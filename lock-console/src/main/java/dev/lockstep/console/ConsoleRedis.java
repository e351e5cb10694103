package dev.lockstep.console;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Where the console keeps what it writes: one template for its records, histories and job-trigger
 * requests, and the base of their keys, {@code <lockstep.key-prefix>console:}.
 */
record ConsoleRedis(StringRedisTemplate template, String base) {

	static ConsoleRedis under(StringRedisTemplate template, String keyPrefix) {
		return new ConsoleRedis(template, keyPrefix + "console:");
	}

}
