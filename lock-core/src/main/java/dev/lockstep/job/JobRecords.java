package dev.lockstep.job;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.StringUtils;

import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;

/** Reads what job-claim.lua and job-finish.lua recorded about a job's runs and skips. */
final class JobRecords {

	private final StringRedisTemplate redis;

	private final String keyPrefix;

	JobRecords(RedisConnectionFactory connectionFactory, String keyPrefix) {
		this.redis = new StringRedisTemplate(connectionFactory);
		this.redis.afterPropertiesSet();
		this.keyPrefix = keyPrefix;
	}

	Optional<JobRun> lastRun(String job) {
		Map<Object, Object> state = this.redis.opsForHash().entries(JobKeys.of(this.keyPrefix, job).state());
		if (!state.containsKey("last.end")) {
			return Optional.empty();
		}
		return Optional.of(new JobRun(job, field(state, "last.instance"), instant(field(state, "last.slot")),
				instant(field(state, "last.start")), instant(field(state, "last.end")),
				"success".equals(field(state, "last.outcome")), emptyToNull(field(state, "last.error"))));
	}

	Optional<JobSkip> lastSkip(String job) {
		Map<Object, Object> state = this.redis.opsForHash().entries(JobKeys.of(this.keyPrefix, job).state());
		if (!state.containsKey("skip.at")) {
			return Optional.empty();
		}
		return Optional.of(new JobSkip(job, field(state, "skip.instance"), instant(field(state, "skip.at")),
				instant(field(state, "skip.slot")), field(state, "skip.reason")));
	}

	List<JobRun> history(String job) {
		List<String> entries = this.redis.opsForList().range(JobKeys.of(this.keyPrefix, job).history(), 0, -1);
		List<JobRun> runs = new ArrayList<>();
		if (entries != null) {
			for (String entry : entries) {
				// instance|slot|start|end|outcome|exception
				String[] parts = entry.split("\\|", -1);
				if (parts.length == 6) {
					runs.add(new JobRun(job, parts[0], instant(parts[1]), instant(parts[2]), instant(parts[3]),
							"success".equals(parts[4]), emptyToNull(parts[5])));
				}
			}
		}
		return runs;
	}

	private static String field(Map<Object, Object> state, String name) {
		Object value = state.get(name);
		return (value != null) ? value.toString() : "";
	}

	private static @Nullable Instant instant(String millis) {
		return StringUtils.hasText(millis) ? Instant.ofEpochMilli(Long.parseLong(millis)) : null;
	}

	private static @Nullable String emptyToNull(String value) {
		return StringUtils.hasText(value) ? value : null;
	}

}
