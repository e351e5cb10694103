package dev.lockstep.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import dev.lockstep.internal.redis.FeatureScripts;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.ScriptSet;

/** The queue's Lua scripts with typed arguments and replies; each call is one round trip. */
@SuppressWarnings("unchecked")
final class QueueScripts extends FeatureScripts {

	/** The queue's scripts, each after their shared functions ({@code queue-common.lua}). */
	private static final ScriptSet SCRIPTS = new ScriptSet(QueueScripts.class, "queue-common.lua")
		.returning(ScriptOutputType.MULTI, "queue-submit.lua", "queue-take.lua", "queue-renew.lua",
				"queue-finish.lua", "queue-reclaim.lua", "queue-view.lua")
		.returning(ScriptOutputType.INTEGER, "queue-fail.lua", "queue-release.lua", "queue-redrive.lua",
				"queue-discard.lua", "queue-pause.lua", "queue-resume.lua")
		.returning(ScriptOutputType.VALUE, "queue-untake.lua");

	/**
	 * How long a take that finds nothing marks that its worker may be idle (see {@code :idle} in
	 * queue-common.lua): longer than an idle worker waits before it looks again.
	 */
	static final Duration IDLE_MARK = IdleWorkers.IDLE_LOOK.plusSeconds(5);

	QueueScripts(RedisScripts redis) {
		super(redis, SCRIPTS);
	}

	/** The id of the stored task: this one, or the one stored already under the deduplication id. */
	CompletableFuture<String> submit(QueueKeys keys, String id, String group, String payload,
			@Nullable String deduplicationId, Duration window) {
		return this.<List<Object>>run("queue-submit.lua", keys.forScripts(), List.of(id, group, payload,
				(deduplicationId != null) ? deduplicationId : "", Long.toString(window.toMillis()), keys.channel()))
			.thenApply((reply) -> ScriptSet.text(reply.get(1)));
	}

	/**
	 * The task started for {@code owner}, or the wait until a lease or retry falls due;
	 * {@code sweep}: the leases and retries that fell due are handled first (a take that finds no
	 * group waiting handles them anyway when one is due).
	 */
	CompletableFuture<Taken> take(QueueKeys keys, String owner, QueueSettings settings, boolean sweep) {
		return take(keys, owner, settings.maxAttempts(), settings.leaseTime(), sweep, false);
	}

	/**
	 * The take of a worker woken by a wake-up: as above without a sweep, but when no group waits for
	 * a worker (another worker took it first) or the queue is paused, it starts nothing
	 * ({@link Taken#NOTHING_WAITED}): it looks for no lease or retry that fell due and leaves the idle
	 * mark as it was. Either way it tells the other instances on the queue's channel that this
	 * instance answered a wake-up (see woken_take in queue-common.lua, and {@link IdleWorkers#heard}).
	 */
	CompletableFuture<Taken> wokenTake(QueueKeys keys, String owner, QueueSettings settings) {
		return take(keys, owner, settings.maxAttempts(), settings.leaseTime(), false, true);
	}

	/** A take that handles the leases and retries that fell due first. */
	CompletableFuture<Taken> take(QueueKeys keys, String owner, int maxAttempts, Duration leaseTime) {
		return take(keys, owner, maxAttempts, leaseTime, true, false);
	}

	/** {@code maxAttempts}: a task whose lease ran out on its last attempt is buried; {@code woken}: see {@link #wokenTake}. */
	CompletableFuture<Taken> take(QueueKeys keys, String owner, int maxAttempts, Duration leaseTime, boolean sweep,
			boolean woken) {
		long sent = System.nanoTime();
		return this.<List<Object>>run("queue-take.lua", keys.forScripts(), List.of(owner, Long.toString(leaseTime.toMillis()),
				Integer.toString(maxAttempts), keys.channel(), sweep ? "1" : "0", Long.toString(IDLE_MARK.toMillis()),
				woken ? "1" : "0"))
			.thenApply((reply) -> Taken.of(keys.queue(), owner, reply, sent));
	}

	/**
	 * Undoes a take by {@code owner} whose reply was lost: the task it started, if any, goes back
	 * to its group's head with its attempt not counted. Null when the take started none. Sent also
	 * while the connection is down, once Lettuce reconnects: a task a lost take started must go back
	 * then, not wait for its lease to run out and count the attempt.
	 */
	CompletableFuture<@Nullable String> untake(QueueKeys keys, String owner) {
		return this.<byte @Nullable []>runAfterReconnect("queue-untake.lua", keys.forScripts(), List.of(owner, keys.channel()))
			.thenApply((id) -> (id != null) ? new String(id, StandardCharsets.UTF_8) : null);
	}

	/**
	 * Gives back the tasks held by earlier runs of {@code instanceId} (owner ids starting with it but
	 * not with {@code ownerPrefix}, this run's); their ids.
	 */
	CompletableFuture<List<String>> reclaim(QueueKeys keys, String instanceId, String ownerPrefix, int maxAttempts) {
		return this.<List<Object>>run("queue-reclaim.lua", keys.forScripts(), List.of(instanceId + ":", ownerPrefix,
				Integer.toString(maxAttempts), keys.channel()))
			.thenApply((reply) -> reply.stream().map(ScriptSet::text).toList());
	}

	/** The ids among {@code owners}' tasks whose lease is gone. */
	CompletableFuture<List<String>> renew(QueueKeys keys, Map<String, String> owners, Duration leaseTime) {
		List<String> args = new ArrayList<>(1 + owners.size() * 2);
		args.add(Long.toString(leaseTime.toMillis()));
		owners.forEach((id, owner) -> {
			args.add(id);
			args.add(owner);
		});
		return this.<List<Object>>run("queue-renew.lua", keys.forScripts(), args)
			.thenApply((reply) -> reply.stream().map(ScriptSet::text).toList());
	}

	/**
	 * 1 (also when this owner's finish was recorded already: a call sent again), or 0 when the task
	 * was no longer {@code owner}'s.
	 */
	CompletableFuture<Long> finish(QueueKeys keys, String id, String owner, Duration keep) {
		return finishAndTake(keys, id, owner, keep, null, QueueSettings.DEFAULTS, false).thenApply((finished) -> finished.ended() ? 1L : 0L);
	}

	/**
	 * Finishes the task and, with a {@code nextOwner}, takes the worker's next task in the same
	 * round trip (see queue-finish.lua); nothing is taken when the task was no longer {@code owner}'s.
	 * {@code sweep}: the take handles the leases and retries that fell due first.
	 */
	CompletableFuture<Finished> finishAndTake(QueueKeys keys, String id, String owner, Duration keep,
			@Nullable String nextOwner, QueueSettings settings, boolean sweep) {
		long sent = System.nanoTime();
		return this.<List<Object>>run("queue-finish.lua", keys.forScripts(), List.of(id, owner, Long.toString(keep.toMillis()),
				keys.channel(), (nextOwner != null) ? nextOwner : "", Long.toString(settings.leaseTime().toMillis()),
				Integer.toString(settings.maxAttempts()), sweep ? "1" : "0", Long.toString(IDLE_MARK.toMillis())))
			.thenApply((reply) -> new Finished((Long) reply.get(0) == 1L,
					Taken.of(keys.queue(), (nextOwner != null) ? nextOwner : "", (List<Object>) reply.get(1), sent)));
	}

	/** How a finish went: whether it ended the task (else its lease had run out), and what it took next. */
	record Finished(boolean ended, Taken next) {
	}

	/**
	 * 1 retry later, 2 dead, 0 no longer {@code owner}'s; the same call sent again once it was
	 * recorded answers as the first did. {@code maxAttempts} 0 buries the task at once.
	 */
	CompletableFuture<Long> fail(QueueKeys keys, String id, String owner, String error, int maxAttempts, Duration backoff) {
		return run("queue-fail.lua", keys.forScripts(), List.of(id, owner, error, Integer.toString(maxAttempts),
				Long.toString(backoff.toMillis()), keys.channel()));
	}

	/**
	 * 1 when the task was given back, 2 when that was its last attempt and it went to the dead letters
	 * (also when this owner's release was recorded already: a call sent again), or 0 when the task
	 * was no longer {@code owner}'s.
	 */
	CompletableFuture<Long> release(QueueKeys keys, String id, String owner, String reason, int maxAttempts) {
		return run("queue-release.lua", keys.forScripts(), List.of(id, owner, reason, keys.channel(),
				Integer.toString(maxAttempts)));
	}

	/**
	 * Redrives a dead task: 1, or 0 when it was not dead. The same call ({@code callId}) sent again
	 * within {@code keep} answers as the first and does nothing, even if the task died again since.
	 */
	CompletableFuture<Long> redrive(QueueKeys keys, String id, String callId, Duration keep) {
		return run("queue-redrive.lua", keys.forScripts(), List.of(id, keys.channel(), callId, Long.toString(keep.toMillis())));
	}

	/**
	 * Discards a dead task: 1, or 0 when it was not dead. The same call ({@code callId}) sent again
	 * within {@code keep} answers as the first.
	 */
	CompletableFuture<Long> discard(QueueKeys keys, String id, String callId, Duration keep) {
		return run("queue-discard.lua", keys.forScripts(), List.of(id, callId, Long.toString(keep.toMillis())));
	}

	/**
	 * Pauses the queue ({@code group} null) or a group: 1, or 0 when it was paused already. The
	 * same call ({@code callId}) sent again within {@code keep} answers as the first and does nothing.
	 */
	CompletableFuture<Long> pause(QueueKeys keys, @Nullable String group, String callId, Duration keep) {
		return run("queue-pause.lua", keys.forScripts(), List.of((group == null) ? "queue" : "group", (group == null) ? "" : group,
				callId, Long.toString(keep.toMillis())));
	}

	/**
	 * Resumes the queue ({@code group} null) or a group: 1, or 0 when it was not paused. The same
	 * call ({@code callId}) sent again within {@code keep} answers as the first and does nothing.
	 */
	CompletableFuture<Long> resume(QueueKeys keys, @Nullable String group, String callId, Duration keep) {
		return run("queue-resume.lua", keys.forScripts(), List.of((group == null) ? "queue" : "group", (group == null) ? "" : group,
				keys.channel(), callId, Long.toString(keep.toMillis())));
	}

	/** Whether the queue is paused, and its paused groups, sorted. */
	CompletableFuture<Paused> paused(QueueKeys keys) {
		return this.<List<Object>>run("queue-view.lua", keys.forScripts(), List.of("paused"))
			.thenApply((reply) -> new Paused((Long) reply.get(0) == 1L,
					((List<Object>) reply.get(1)).stream().map(ScriptSet::text).toList()));
	}

	/** The pause state of a queue. */
	record Paused(boolean queue, List<String> groups) {
	}

	/** {queued, running, dead, groups waiting}. */
	CompletableFuture<List<Long>> stats(QueueKeys keys) {
		return run("queue-view.lua", keys.forScripts(), List.of("stats"));
	}

	/** {retries waiting, due now, ms to the next (-1), oldest submitted ms (-1), complete (1/0)}; see queue-view.lua. */
	CompletableFuture<List<Long>> backlog(QueueKeys keys, int max) {
		return run("queue-view.lua", keys.forScripts(), List.of("backlog", Integer.toString(max)));
	}

	/** The task's fields, or nothing when Redis holds no such task. */
	CompletableFuture<List<TaskFields>> task(QueueKeys keys, String id) {
		return this.<List<Object>>run("queue-view.lua", keys.forScripts(), List.of("task", id)).thenApply(QueueScripts::tasks);
	}

	CompletableFuture<List<TaskFields>> dead(QueueKeys keys, int max) {
		return this.<List<Object>>run("queue-view.lua", keys.forScripts(), List.of("dead", Integer.toString(max)))
			.thenApply(QueueScripts::tasks);
	}

	/** Groups of running tasks and groups waiting for a worker, up to {@code max} of each. */
	CompletableFuture<List<QueueGroup>> groups(QueueKeys keys, int max) {
		return this.<List<Object>>run("queue-view.lua", keys.forScripts(), List.of("groups", Integer.toString(max)))
			.thenApply((reply) -> reply.stream().map((entry) -> {
				List<?> fields = (List<?>) entry;
				return new QueueGroup(ScriptSet.text(fields.get(0)), (Long) fields.get(1), (Long) fields.get(2) == 1L);
			}).toList());
	}

	private static List<TaskFields> tasks(List<Object> reply) {
		List<TaskFields> tasks = new ArrayList<>(reply.size());
		for (Object entry : reply) {
			List<?> fields = (List<?>) entry;
			if (fields.size() == 6) {
				tasks.add(new TaskFields(ScriptSet.text(fields.get(0)), ScriptSet.text(fields.get(1)), ScriptSet.text(fields.get(2)),
						Integer.parseInt(ScriptSet.text(fields.get(3))), Long.parseLong(ScriptSet.text(fields.get(4))), ScriptSet.text(fields.get(5))));
			}
		}
		return tasks;
	}

	/** A task as queue-view.lua reads it. */
	record TaskFields(String id, String group, String state, int attempt, long submittedMillis, String error) {
	}

	/**
	 * What a take gave: a started task, or none and the milliseconds until a lease or retry falls
	 * due ({@code -1}: none; {@link #NOTHING_WAITED}: a woken worker's take that started nothing).
	 */
	record Taken(@Nullable Started task, long nextDueMillis) {

		/** {@link #nextDueMillis} of a woken worker's take that found no group waiting: it did not look. */
		static final long NOTHING_WAITED = -2;

		/** {@code sentNanos}: when the take was sent ({@link System#nanoTime()}); its lease counts from then. */
		static Taken of(String queue, String owner, List<Object> reply, long sentNanos) {
			if ((Long) reply.get(0) == 0L) {
				return new Taken(null, (Long) reply.get(1));
			}
			return new Taken(new Started(queue, ScriptSet.text(reply.get(1)), owner, ScriptSet.text(reply.get(2)), ScriptSet.text(reply.get(3)),
					((Long) reply.get(4)).intValue(), (Long) reply.get(5), ScriptSet.text(reply.get(6)), (Long) reply.get(7),
					(Long) reply.get(8), sentNanos), -1);
		}

	}

	/**
	 * A task that started, as take.lua gave it; {@code startedMillis} and {@code submittedMillis} by
	 * the server clock, {@code fencingToken} the server clock in microseconds when the attempt
	 * started, {@code sentNanos} when its take was sent, by this JVM's monotonic clock.
	 */
	record Started(String queue, String id, String owner, String group, String payload, int attempt,
			long submittedMillis, String lastError, long startedMillis, long fencingToken, long sentNanos) {
	}

}
