package dev.lockstep.console;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import dev.lockstep.JobElection;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobNextSlot;
import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;
import dev.lockstep.LockSnapshot;
import dev.lockstep.LockStateRegistry;
import dev.lockstep.QueueBacklog;
import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialQueueRegistry;
import dev.lockstep.SerialTask;
import dev.lockstep.console.InstanceRecords.HeldByInstance;
import dev.lockstep.console.InstanceRecords.InstanceRecord;

/**
 * The whole cluster as Redis holds it: the instances from their heartbeat records, every lock
 * and permit one of them reported holding (checked against Redis: shown while Redis still shows that holder), every
 * queue one of them runs tasks of and every job one of them guards, each read from Redis with
 * Lockstep's own views, and the history of the last hour. Reading costs Redis a few commands per
 * instance, one read-only script per lock, about six per queue and a handful per job; nothing scans
 * the key space.
 */
final class ClusterView {

	static final int DEAD_SHOWN = 20;

	static final int GROUPS_SHOWN = 10;

	/** Groups of each kind read for a queue's oldest task (see {@link SerialQueueRegistry#backlog}). */
	static final int BACKLOG_GROUPS = 1000;

	private final ConsoleStores stores;

	private final String instanceId;

	private final @Nullable LockStateRegistry locks;

	private final @Nullable SerialQueueRegistry queues;

	private final @Nullable SerialQueue queueActions;

	private final @Nullable JobGuardRegistry jobs;

	ClusterView(ConsoleStores stores, String instanceId, @Nullable LockStateRegistry locks, @Nullable SerialQueueRegistry queues,
			@Nullable SerialQueue queueActions, @Nullable JobGuardRegistry jobs) {
		this.stores = stores;
		this.instanceId = instanceId;
		this.locks = locks;
		this.queues = queues;
		this.queueActions = queueActions;
		this.jobs = jobs;
	}

	Cluster read() {
		long now = System.currentTimeMillis();
		List<InstanceRecord> all = this.stores.records().all();
		List<Instance> instances = all.stream()
			.map((record) -> new Instance(record.id(), record.host(), record.version(), record.lockstepVersion(),
					record.heartbeatMillis(), record.alive(), record.id().equals(this.instanceId), record.locks().size()))
			.toList();
		LockStateRegistry locks = this.locks;
		SerialQueueRegistry queues = this.queues;
		JobGuardRegistry jobs = this.jobs;
		// a feature this instance does not have shows nothing
		return new Cluster(now, this.instanceId, instances, (locks != null) ? locks(locks, all, now) : List.of(),
				(locks != null) ? permits(locks, all, now) : List.of(), this.stores.activity().lockWaits(now),
				(queues != null) ? queues(queues, all, now) : List.of(), (jobs != null) ? jobs(jobs, all, now) : List.of());
	}

	private List<LockOwnership> locks(LockStateRegistry service, List<InstanceRecord> all, long now) {
		List<LockOwnership> held = new ArrayList<>();
		for (InstanceRecord record : all) {
			for (HeldByInstance lock : record.locks()) {
				if (lock.permits() > 0) {
					continue;
				}
				LockSnapshot.KeyState state = service.keyState(lock.key());
				// the record is a few seconds old: shown only while Redis still shows that hold
				if (record.lockInstance().equals(state.holderInstance()) && state.fencingToken() != null
						&& state.fencingToken() == lock.fencingToken()) {
					held.add(new LockOwnership(lock.key(), record.id(), record.lockInstance(), record.alive(), lock.thread(),
							lock.fencingToken(), now - lock.heldSinceMillis(),
							(state.leaseLeft() != null) ? state.leaseLeft().toMillis() : null, state.waiters(),
							state.waitersInAll()));
				}
			}
		}
		return held;
	}

	/**
	 * The keys whose permits the instances reported holding, with Redis's count of those held and
	 * waiting now; a key is shown while Redis shows a permit of it held.
	 */
	private List<PermitUse> permits(LockStateRegistry service, List<InstanceRecord> all, long now) {
		Map<String, List<PermitHolder>> holders = new TreeMap<>();
		Map<String, Integer> limits = new LinkedHashMap<>();
		for (InstanceRecord record : all) {
			for (HeldByInstance held : record.locks()) {
				if (held.permits() > 0) {
					holders.computeIfAbsent(held.key(), (key) -> new ArrayList<>())
						.add(new PermitHolder(record.id(), record.alive(), held.thread(), held.fencingToken(), now - held.heldSinceMillis()));
					limits.merge(held.key(), held.permits(), Math::max);
				}
			}
		}
		List<PermitUse> permits = new ArrayList<>();
		holders.forEach((key, reported) -> {
			LockSnapshot.PermitState state = service.permitState(key);
			if (state.held() > 0) {
				permits.add(new PermitUse(key, limits.get(key), state.held(), state.waiting(), reported));
			}
		});
		return permits;
	}

	private List<Queue> queues(SerialQueueRegistry service, List<InstanceRecord> all, long now) {
		SerialQueue actions = this.queueActions;
		TreeSet<String> names = new TreeSet<>(service.listenedQueues());
		all.stream().filter(InstanceRecord::alive).forEach((record) -> names.addAll(record.queues()));
		List<Queue> queues = new ArrayList<>();
		for (String name : names) {
			queues.add(new Queue(name, service.stats(name), Backlog.of(service.backlog(name, BACKLOG_GROUPS), now),
					actions != null && actions.isPaused(name), (actions != null) ? actions.pausedGroups(name) : List.of(),
					service.busiestGroups(name, GROUPS_SHOWN).stream().map(Group::of).toList(),
					service.deadLetters(name, DEAD_SHOWN).stream().map(DeadTask::of).toList(), this.stores.history().queue(name),
					this.stores.activity().tasks(name, now)));
		}
		return queues;
	}

	private List<Job> jobs(JobGuardRegistry registry, List<InstanceRecord> all, long now) {
		Map<String, List<String>> guardedBy = new LinkedHashMap<>();
		Map<String, List<String>> runnableBy = new LinkedHashMap<>();
		registry.jobs().forEach((job) -> guardedBy.computeIfAbsent(job.name(), (name) -> new ArrayList<>()));
		for (InstanceRecord record : all) {
			if (record.alive()) {
				record.jobs().forEach((job) -> guardedBy.computeIfAbsent(job, (name) -> new ArrayList<>()).add(record.id()));
				record.runnable().forEach((job) -> runnableBy.computeIfAbsent(job, (name) -> new ArrayList<>()).add(record.id()));
			}
		}
		List<Job> jobs = new ArrayList<>();
		new TreeSet<>(guardedBy.keySet()).forEach((name) -> jobs.add(new Job(name, guardedBy.get(name),
				runnableBy.getOrDefault(name, List.of()), registry.lastRun(name).orElse(null),
				registry.lastSkip(name).orElse(null), registry.nextSlot(name).orElse(null), registry.history(name),
				registry.elections(name), this.stores.activity().jobs(name, now), this.stores.requests().all(name))));
		return jobs;
	}

	/** The console's one read: everything the page shows. */
	record Cluster(long readAt, String thisInstance, List<Instance> instances, List<LockOwnership> locks,
			List<PermitUse> permits, List<ActivityHistory.LockWaits> lockWaits, List<Queue> queues, List<Job> jobs) {
	}

	/** An instance, alive or seen within the last hour. */
	record Instance(String id, String host, String version, String lockstepVersion, long lastHeartbeat, boolean alive,
			boolean thisInstance, int locksHeld) {
	}

	/** A lock held now, as its holder reported it and Redis confirms it. */
	record LockOwnership(String key, String instance, String holder, boolean holderAlive, String thread, long fencingToken,
			long heldForMillis, @Nullable Long leaseLeftMillis, List<String> waiters, long waitersInAll) {
	}

	/**
	 * A key's permits in use: {@code inUse} and {@code waiting} as Redis counts them now, {@code limit}
	 * the largest number of holders the reported holders' callers allow, {@code holders} as the
	 * instances reported them at their last heartbeat.
	 */
	record PermitUse(String key, int limit, long inUse, long waiting, List<PermitHolder> holders) {
	}

	/** A permit an instance reported holding. */
	record PermitHolder(String instance, boolean alive, String thread, long fencingToken, long heldForMillis) {
	}

	/** A queue, read from Redis. */
	record Queue(String name, QueueStats stats, Backlog backlog, boolean paused, List<String> pausedGroups,
			List<Group> busiestGroups, List<DeadTask> deadLetters, List<ConsoleHistory.Sample> history,
			List<ActivityHistory.TaskRate> tasks) {
	}

	/** One of a queue's busiest groups. */
	record Group(String group, long queued, boolean running) {

		static Group of(SerialQueueRegistry.Group group) {
			return new Group(group.group(), group.queued(), group.running());
		}

	}

	/**
	 * A queue's retries and oldest task (see {@link QueueBacklog}), with ages in ms: {@code
	 * nextRetryInMillis} and {@code oldestAgeMillis} null when there is none; {@code complete} false
	 * when the queue had more groups than were read.
	 */
	record Backlog(long retriesWaiting, long retriesDueNow, @Nullable Long nextRetryInMillis, @Nullable Long oldestAgeMillis,
			boolean complete) {

		static Backlog of(QueueBacklog backlog, long now) {
			return new Backlog(backlog.retriesWaiting(), backlog.retriesDueNow(),
					(backlog.nextRetryIn() != null) ? backlog.nextRetryIn().toMillis() : null,
					(backlog.oldestSubmitted() != null) ? Math.max(0, now - backlog.oldestSubmitted().toEpochMilli()) : null,
					backlog.complete());
		}

	}

	/** A dead task. */
	record DeadTask(String id, String group, int attempt, long submittedAt, @Nullable String lastError) {

		static DeadTask of(SerialTask task) {
			return new DeadTask(task.id(), task.group(), task.attempt(), task.submittedAt().toEpochMilli(), task.lastError());
		}

	}

	/** A guarded job, read from Redis: its ledger. */
	record Job(String name, List<String> guardedBy, List<String> runnableBy, @Nullable JobRun lastRun,
			@Nullable JobSkip lastSkip, @Nullable JobNextSlot next, List<JobRun> history, List<JobElection> elections,
			List<ActivityHistory.JobRuns> runsPerMinute, List<JobTriggerRequests.Trigger> requests) {
	}

}
