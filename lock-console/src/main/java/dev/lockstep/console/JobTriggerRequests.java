package dev.lockstep.console;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;

/**
 * "Run now" from the console of any instance: the request goes to Redis, and the first instance
 * that guards the job to see it at its heartbeat takes it ({@code RPOP}: one taker) and calls the
 * job's method through the job guard, as a firing without a slot (so it runs unless a run holds
 * the guard, and the guard records it in the job's history, "on demand"). What came of each request
 * is kept beside the job's history, with the user who asked (under the key prefix):
 * <ul>
 * <li>{@code console:job-trigger:<job>}: list of request ids not yet taken, expiring an hour after
 * the last request;</li>
 * <li>{@code console:job-triggers:<job>}: hash, request id -> its record (when and by whom it was
 * asked, on which instance's console, its state, the instance that took it, what came of it, and
 * the start of the run it made), the last {@value #KEPT_REQUESTS} kept, expiring a day after the
 * last change.</li>
 * </ul>
 */
final class JobTriggerRequests {

	private static final Logger logger = LoggerFactory.getLogger(JobTriggerRequests.class);

	static final int KEPT_REQUESTS = 20;

	private static final Duration PENDING_KEPT = Duration.ofHours(1);

	private static final Duration RECORDS_KEPT = Duration.ofDays(1);

	private final StringRedisTemplate redis;

	private final String prefix;

	JobTriggerRequests(ConsoleRedis redis) {
		this.redis = redis.template();
		this.prefix = redis.base();
	}

	/** Asks for a run of {@code job}; returns the request's id. */
	String ask(String job, String user, String askedOn) {
		String id = UUID.randomUUID().toString().substring(0, 8);
		write(job, new Trigger(id, System.currentTimeMillis(), user, askedOn, State.ASKED, "", "", null));
		String pending = pendingKey(job);
		this.redis.opsForList().leftPush(pending, id);
		this.redis.expire(pending, PENDING_KEPT);
		return id;
	}

	/** The oldest request for {@code job} not yet taken, now taken by this instance; null when none. */
	@Nullable Trigger take(String job, String instance) {
		String id = this.redis.opsForList().rightPop(pendingKey(job));
		if (id == null) {
			return null;
		}
		Trigger asked = read(job, id);
		Trigger taken = (asked != null) ? asked.then(State.TAKEN, instance, "", null)
				: new Trigger(id, System.currentTimeMillis(), "unknown", "unknown", State.TAKEN, instance, "", null);
		write(job, taken);
		return taken;
	}

	/**
	 * Runs the taken request on this thread through {@code call} (the job's method through its proxy)
	 * and records what came of it, read from the job's history: a new run of this instance without a
	 * slot, or its skip.
	 */
	void run(String job, Trigger taken, Runnable call, JobGuardRegistry registry) {
		List<JobRun> before = registry.history(job);
		String failure = null;
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			failure = ex.getClass().getName();
		}
		JobRun run = registry.history(job)
			.stream()
			.filter((candidate) -> !before.contains(candidate) && candidate.instance().equals(registry.instanceId())
					&& candidate.scheduledTime() == null)
			.findFirst()
			.orElse(null);
		Trigger ended;
		if (run != null) {
			ended = taken.then(run.succeeded() ? State.RAN : State.FAILED, taken.instance(),
					"took " + run.duration().toMillis() + " ms" + (run.succeeded() ? "" : ", threw " + run.exception()),
					run.start().toEpochMilli());
		}
		else if (failure != null) {
			ended = taken.then(State.FAILED, taken.instance(), "threw " + failure, null);
		}
		else {
			JobSkip skip = registry.lastSkip(job).filter((last) -> last.instance().equals(registry.instanceId())).orElse(null);
			ended = taken.then(State.SKIPPED, taken.instance(), (skip != null) ? skip.reason() : "a run held the guard", null);
		}
		write(job, ended);
		logger.info("Lockstep console: job '{}' asked by {} on {}: {} on {}{}", job, ended.user(), ended.askedOn(),
				ended.state().name().toLowerCase(), ended.instance(), ended.detail().isEmpty() ? "" : " (" + ended.detail() + ")");
	}

	/** The job's requests kept, newest first. */
	List<Trigger> all(String job) {
		List<Trigger> all = new ArrayList<>();
		this.redis.opsForHash().entries(recordsKey(job)).forEach((id, value) -> {
			Trigger trigger = parse(id.toString(), value.toString());
			if (trigger != null) {
				all.add(trigger);
			}
		});
		all.sort(Comparator.comparingLong(Trigger::askedAt).reversed().thenComparing(Trigger::id));
		return all;
	}

	private @Nullable Trigger read(String job, String id) {
		Object value = this.redis.opsForHash().get(recordsKey(job), id);
		return (value != null) ? parse(id, value.toString()) : null;
	}

	private void write(String job, Trigger trigger) {
		String key = recordsKey(job);
		this.redis.opsForHash().put(key, trigger.id(), TabFields.join(trigger.askedAt(), trigger.user(), trigger.askedOn(),
				trigger.state().name(), trigger.instance(), trigger.detail(), (trigger.runStart() != null) ? trigger.runStart() : ""));
		this.redis.expire(key, RECORDS_KEPT);
		Long size = this.redis.opsForHash().size(key);
		if (size != null && size > KEPT_REQUESTS) {
			List<Trigger> all = all(job);
			Object[] dropped = all.subList(KEPT_REQUESTS, all.size()).stream().map(Trigger::id).toArray();
			if (dropped.length > 0) {
				this.redis.opsForHash().delete(key, dropped);
			}
		}
	}

	private static @Nullable Trigger parse(String id, String value) {
		String[] parts = TabFields.split(value);
		if (parts.length != 7) {
			return null;
		}
		try {
			return new Trigger(id, Long.parseLong(parts[0]), parts[1], parts[2], State.valueOf(parts[3]), parts[4], parts[5],
					parts[6].isEmpty() ? null : Long.parseLong(parts[6]));
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private String pendingKey(String job) {
		return this.prefix + "job-trigger:" + job;
	}

	private String recordsKey(String job) {
		return this.prefix + "job-triggers:" + job;
	}

	/** Where a request is. */
	enum State {

		/** Asked, not yet taken by an instance that guards the job. */
		ASKED,

		/** Taken by an instance, which is calling the job. */
		TAKEN,

		/** The job ran and returned. */
		RAN,

		/** The job ran and threw (or the call failed before it). */
		FAILED,

		/** The guard skipped it: a run held the guard. */
		SKIPPED

	}

	/**
	 * One "run now" request.
	 * @param id its id
	 * @param askedAt when it was asked (ms, the asking instance's clock)
	 * @param user who asked
	 * @param askedOn the instance whose console it was asked on
	 * @param state where it is
	 * @param instance the instance that took it ({@code ""} before)
	 * @param detail what came of it
	 * @param runStart the start of the run it made, as the job's history records it (ms), or null
	 */
	record Trigger(String id, long askedAt, String user, String askedOn, State state, String instance, String detail,
			@Nullable Long runStart) {

		Trigger then(State next, String by, String what, @Nullable Long start) {
			return new Trigger(this.id, this.askedAt, this.user, this.askedOn, next, by, what, start);
		}

	}

}
