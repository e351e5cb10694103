package dev.lockstep.job;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.StringUtils;

import dev.lockstep.JobElection;
import dev.lockstep.JobMember;
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

	/** Instances seen alive for {@code job}, most recently seen first, with the last slot each fired. */
	List<JobMember> members(String job) {
		JobKeys keys = JobKeys.of(this.keyPrefix, job);
		Map<Object, Object> seen = this.redis.opsForHash().entries(keys.members());
		Map<Object, Object> fired = this.redis.opsForHash().entries(keys.fired());
		List<JobMember> members = new ArrayList<>();
		seen.forEach((instance, lastSeen) -> members.add(new JobMember(job, instance.toString(),
				Instant.ofEpochMilli(Long.parseLong(lastSeen.toString())),
				instant((fired.get(instance) != null) ? fired.get(instance).toString() : ""))));
		members.sort(Comparator.comparing(JobMember::lastSeen).reversed().thenComparing(JobMember::instance));
		return members;
	}

	/** The last {@code max} slots elected for {@code job}, newest first, with who ran each. */
	List<JobElection> elections(String job, int max) {
		JobKeys keys = JobKeys.of(this.keyPrefix, job);
		Set<String> elected = this.redis.opsForZSet().reverseRange(keys.elections(), 0, max - 1);
		if (elected == null || elected.isEmpty()) {
			return List.of();
		}
		List<JobElection> elections = new ArrayList<>();
		for (String entry : elected) {
			// '<slot>:<chosen instance>'; the slots decided are '<slot>:<instance that ran it>' or '<slot>:'
			int colon = entry.indexOf(':');
			long slot = Long.parseLong(entry.substring(0, colon));
			Set<String> decided = this.redis.opsForZSet().rangeByScore(keys.slots(), slot, slot);
			String ranOn = null;
			if (decided != null && !decided.isEmpty()) {
				String decision = decided.iterator().next();
				ranOn = emptyToNull(decision.substring(decision.indexOf(':') + 1));
			}
			elections.add(new JobElection(job, Instant.ofEpochMilli(slot), entry.substring(colon + 1), ranOn));
		}
		return elections;
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
