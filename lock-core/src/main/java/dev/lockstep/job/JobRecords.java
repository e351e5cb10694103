package dev.lockstep.job;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.StringUtils;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobElection;
import dev.lockstep.JobMember;
import dev.lockstep.JobNextSlot;
import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.internal.redis.ReplyWait;
import dev.lockstep.internal.redis.ScriptSet;

/**
 * Reads what job-claim.lua, job-finish.lua and job-member.lua recorded about a job's runs, skips,
 * members and elections: one read-only script call each (job-view.lua), over the job guard's
 * connection, waited for as every Redis reply is ({@link ReplyWait}); Redis trouble is a
 * {@link LockUnavailableException}.
 */
record JobRecords(JobScripts scripts, ReplyWait replies, String keyPrefix) {

	/** Runs kept in the history. */
	static final int HISTORY_SIZE = 20;

	/** The reply of job-view.lua for {@code job}. */
	private List<Object> view(String job, String what, String argument) {
		return this.replies.await(this.scripts.view(JobKeys.of(this.keyPrefix, job), what, argument),
				"reading the " + what + " records of job '" + job + "'", LockUnavailableException::new,
				(ex) -> new LockUnavailableException("Interrupted while reading the records of job '" + job + "'", ex));
	}

	private static List<String> texts(@Nullable Object reply) {
		List<String> texts = new ArrayList<>();
		if (reply instanceof List<?> parts) {
			parts.forEach((part) -> texts.add(ScriptSet.text(part)));
		}
		return texts;
	}

	/** A hash as HGETALL answers it (field, value, field, value ...). */
	private static Map<String, String> hash(@Nullable Object reply) {
		List<String> flat = texts(reply);
		Map<String, String> hash = new LinkedHashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			hash.put(flat.get(i), flat.get(i + 1));
		}
		return hash;
	}

	Optional<JobRun> lastRun(String job) {
		List<JobRun> last = runs(job, 0);
		return last.isEmpty() ? Optional.empty() : Optional.of(last.get(0));
	}

	Optional<JobSkip> lastSkip(String job) {
		Map<String, String> state = hash(view(job, "state", ""));
		if (!state.containsKey("skip.at")) {
			return Optional.empty();
		}
		return Optional.of(new JobSkip(job, field(state, "skip.instance"), instant(field(state, "skip.at")),
				instant(field(state, "skip.slot")), field(state, "skip.reason")));
	}

	List<JobRun> history(String job) {
		return runs(job, HISTORY_SIZE - 1);
	}

	/** The runs recorded, newest first, up to index {@code last} (job-finish.lua trims the list only now and then). */
	private List<JobRun> runs(String job, int last) {
		List<JobRun> runs = new ArrayList<>();
		for (String entry : texts(view(job, "history", Integer.toString(last)))) {
			// instance|slot|start|end|outcome|exception|owner id (earlier builds wrote no owner id)
			String[] parts = entry.split("\\|", -1);
			if (parts.length == 6 || parts.length == 7) {
				runs.add(new JobRun(job, parts[0], instant(parts[1]), instant(parts[2]), instant(parts[3]),
						"success".equals(parts[4]), emptyToNull(parts[5])));
			}
		}
		return runs;
	}

	/** Instances seen alive for {@code job}, most recently seen first, with the last slot each fired. */
	List<JobMember> members(String job) {
		Map<String, String> fields = hash(view(job, "members", ""));
		List<JobMember> members = new ArrayList<>();
		fields.forEach((name, lastSeen) -> {
			if (name.startsWith("seen:")) {
				String instance = name.substring("seen:".length());
				members.add(new JobMember(job, instance, Instant.ofEpochMilli(Long.parseLong(lastSeen)),
						instant(fields.getOrDefault("fired:" + instance, ""))));
			}
		});
		members.sort(Comparator.comparing(JobMember::lastSeen).reversed().thenComparing(JobMember::instance));
		return members;
	}

	/** The last {@code max} slots elected for {@code job}, newest first, with who ran each. */
	List<JobElection> elections(String job, int max) {
		// each slot has its election ('<slot>:e:<chosen>') and, once decided, '<slot>:r:<instance that ran it>'
		List<String> records = texts(view(job, "elections", Long.toString(2L * max - 1)));
		Map<Long, String> chosen = new LinkedHashMap<>();
		Map<Long, String> ranOn = new HashMap<>();
		for (String record : records) {
			int colon = record.indexOf(':');
			long slot = Long.parseLong(record.substring(0, colon));
			String who = record.substring(colon + 3);
			if (record.startsWith("e:", colon + 1)) {
				chosen.put(slot, who);
			}
			else {
				ranOn.put(slot, who);
			}
		}
		List<JobElection> elections = new ArrayList<>();
		chosen.entrySet().stream().sorted(Map.Entry.<Long, String>comparingByKey().reversed()).limit(max)
			.forEach((election) -> elections.add(new JobElection(job, Instant.ofEpochMilli(election.getKey()),
					election.getValue(), emptyToNull(ranOn.getOrDefault(election.getKey(), "")))));
		return elections;
	}

	/**
	 * The next slot of {@code job} by its cron expression and this instance's clock, with the
	 * instance elected for it or, before its election, the one job-claim.lua's rule would choose
	 * from the members recorded now; empty for a job without a cron expression.
	 * @param livenessMillis how long after it was last seen an instance may still be chosen
	 */
	Optional<JobNextSlot> nextSlot(GuardedJob job, long livenessMillis) {
		if (job.cron() == null) {
			return Optional.empty();
		}
		ZoneId zone = (job.zone() != null) ? ZoneId.of(job.zone()) : ZoneId.systemDefault();
		ZonedDateTime next = CronExpression.parse(job.cron()).next(ZonedDateTime.now(zone));
		if (next == null) {
			return Optional.empty();
		}
		long slot = next.toInstant().toEpochMilli();
		List<Object> reply = view(job.name(), "next", Long.toString(slot));
		for (String record : texts(reply.get(0))) {
			int colon = record.indexOf(':');
			if (record.startsWith("e:", colon + 1)) {
				return Optional.of(new JobNextSlot(job.name(), next.toInstant(), record.substring(colon + 3), true));
			}
		}
		Map<String, String> fields = hash(reply.get(1));
		String latest = fields.get("elected");
		// candidates: seen alive, and fired since about the previous election (any, before the first)
		Long firedSince = null;
		if (latest != null && Long.parseLong(latest) < slot) {
			long previous = Long.parseLong(latest);
			firedSince = previous - (slot - previous);
		}
		long aliveSince = System.currentTimeMillis() - livenessMillis;
		String chosen = null;
		long best = 0;
		for (Map.Entry<String, String> field : fields.entrySet()) {
			String name = field.getKey();
			if (!name.startsWith("seen:") || Long.parseLong(field.getValue()) < aliveSince) {
				continue;
			}
			String candidate = name.substring("seen:".length());
			String fired = fields.get("fired:" + candidate);
			if (fired == null || (firedSince != null && Long.parseLong(fired) < firedSince)) {
				continue;
			}
			String electedAt = fields.get("elected:" + candidate);
			long last = (electedAt != null) ? Long.parseLong(electedAt) : 0;
			if (chosen == null || last < best || (last == best && candidate.compareTo(chosen) < 0)) {
				chosen = candidate;
				best = last;
			}
		}
		return Optional.of(new JobNextSlot(job.name(), next.toInstant(), chosen, false));
	}

	private static String field(Map<String, String> state, String name) {
		return state.getOrDefault(name, "");
	}

	private static @Nullable Instant instant(String millis) {
		return StringUtils.hasText(millis) ? Instant.ofEpochMilli(Long.parseLong(millis)) : null;
	}

	private static @Nullable String emptyToNull(String value) {
		return StringUtils.hasText(value) ? value : null;
	}

}
