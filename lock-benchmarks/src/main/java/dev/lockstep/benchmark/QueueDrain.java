package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.QueueStats;
import dev.lockstep.queue.RedisSerialQueue;

/**
 * Scenarios Q and Q-SCALE's workload on Lockstep's serial queue: {@code tasks} tasks of no work
 * submitted by 16 threads of this JVM over {@code groups} groups (each group's tasks by one thread,
 * in order), then drained by the worker JVMs ({@link QueueWorker}, 8 workers each); what it cost
 * Redis from the first submit to the drain.
 */
final class QueueDrain {

	static final int SUBMIT_THREADS = 16;

	private QueueDrain() {
	}

	/**
	 * What one fill and drain gave.
	 * @param tasksPerSecond tasks over the drain's time, from telling the workers to listen to the queue's counts at zero
	 * @param commands Redis commands from the first submit to the drain, less the drain checks
	 * @param cpuMicros Redis CPU over the same span
	 * @param emptyTakes takes that found no task
	 * @param ran task runs the workers reported
	 * @param outOfOrder runs that started before an earlier task of their group
	 * @param commandsByName the progress line's breakdown
	 */
	record Drained(double tasksPerSecond, long commands, long cpuMicros, long emptyTakes, long ran, long outOfOrder,
			String commandsByName) {

		RunResult result(int tasks) {
			return new RunResult().with(QueueCostScenario.TASKS_PER_SECOND.name(), this.tasksPerSecond)
				.with(TaskMetrics.COMMANDS.name(), (double) this.commands / tasks)
				.with(TaskMetrics.REDIS_CPU.name(), (double) this.cpuMicros / tasks)
				.with(QueueCostScenario.EMPTY_TAKES.name(), (double) this.emptyTakes / tasks)
				.with(QueueCostScenario.OUT_OF_ORDER.name(), this.outOfOrder)
				.withNote(this.ran + " of " + tasks + " tasks ran; per task: " + this.commandsByName);
		}

	}

	static Drained lockstep(BenchmarkRedis redis, List<GroupWorkerProcess> workers, String queue, int tasks, int groups,
			Duration deduplicationWindow) throws Exception {
		LettuceConnectionFactory connections = redis.connect();
		RedisSerialQueue submitter = LockstepServices.queue(connections);
		try {
			long commandsPerPoll = commandsOfOneCheck(redis, submitter, queue);
			CostMeter meter = CostMeter.start(redis);
			submit(submitter, queue, tasks, groups);
			long start = System.nanoTime();
			for (GroupWorkerProcess worker : workers) {
				worker.send("listen " + queue + " " + SerialQueueScenario.WORKERS_PER_JVM + " " + deduplicationWindow.toMillis());
			}
			// the drain's time is this check's: read often enough that its resolution is under 0.1% of it
			long polls = awaitDrained(submitter, queue, Duration.ofMillis(5), Duration.ofMinutes(10));
			double seconds = (System.nanoTime() - start) / 1e9;
			CostMeter.Cost cost = meter.stop();
			CommandCounts commands = cost.commands();
			for (GroupWorkerProcess worker : workers) {
				worker.await("listening", Duration.ofMinutes(1));
			}
			List<QueueTaskRun> runs = collectRuns(workers);
			GroupWorkerProcess.sendAll(workers, "stop", "stopped", Duration.ofMinutes(1));
			long emptyTakes = emptyTakes(commands);
			return new Drained(tasks / seconds, commands.total() - polls * commandsPerPoll, cost.redisCpuMicros(), emptyTakes, runs.size(),
					outOfOrder(runs), commands.per(tasks));
		}
		finally {
			connections.destroy();
		}
	}

	/**
	 * Reads the queue's counts every {@code every} until nothing is queued or running, at most
	 * {@code limit}; how many reads it took (their commands are not the queue's cost: see
	 * {@link #commandsOfOneCheck}).
	 */
	static long awaitDrained(RedisSerialQueue queue, String name, Duration every, Duration limit) {
		long polls = 0;
		long deadline = System.nanoTime() + limit.toNanos();
		while (true) {
			QueueStats stats = queue.stats(name);
			polls++;
			if (stats.queued() == 0 && stats.running() == 0) {
				return polls;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Queue " + name + " did not drain: " + stats);
			}
			LockSupport.parkNanos(every.toNanos());
		}
	}

	/** The task runs each worker JVM reports since its last report. */
	static List<QueueTaskRun> collectRuns(List<GroupWorkerProcess> workers) throws InterruptedException {
		List<QueueTaskRun> runs = new ArrayList<>();
		for (GroupWorkerProcess worker : workers) {
			worker.send("report");
		}
		for (GroupWorkerProcess worker : workers) {
			worker.await("reported", (line) -> runs.add(QueueTaskRun.parse(line.substring("task ".length()))),
					Duration.ofMinutes(1));
		}
		return runs;
	}

	/**
	 * The takes that started no task: a take that finds no group waiting, and only such a take, asks
	 * when the next lease or retry falls due, with two ZRANGEs (queue-common.lua's next_due).
	 */
	static long emptyTakes(CommandCounts commands) {
		return commands.byName().getOrDefault("zrange", 0L) / 2;
	}

	/**
	 * The takes of woken workers that found no group waiting (wake-ups wasted: another worker took
	 * the group first, or another instance's worker did). Every take pops {@code :ready} once
	 * (LPOP) and every start counts the queued tasks down once (DECR), so what pops and neither
	 * starts nor is an empty take ({@link #emptyTakes}) is a woken take that started nothing; exact
	 * while no group waits for a worker without a task to start, as in these scenarios.
	 */
	static long wokenMisses(CommandCounts commands) {
		Map<String, Long> counts = commands.byName();
		return Math.max(0, counts.getOrDefault("lpop", 0L) - counts.getOrDefault("decr", 0L) - emptyTakes(commands));
	}

	/** Submits from 16 threads; each group's tasks from one thread, in sequence order. */
	static void submit(RedisSerialQueue submitter, String queue, int tasks, int groups) throws InterruptedException {
		new ParallelThreads().run(SUBMIT_THREADS, "bench-q-submit", Duration.ofMinutes(10), "a submit failed", (thread) -> {
			for (int i = 0; i < tasks; i++) {
				int group = i % groups;
				if (group % SUBMIT_THREADS == thread) {
					submitter.submit(queue, Integer.toString(group), new QueueTask(group, i, 0, GroupTaskRun.nowMicros()));
				}
			}
		});
	}

	/** Runs that started before a run of an earlier task of their group had started. */
	static long outOfOrder(List<QueueTaskRun> runs) {
		Map<Integer, List<QueueTaskRun>> byGroup = new HashMap<>();
		runs.forEach((run) -> byGroup.computeIfAbsent(run.group(), (group) -> new ArrayList<>()).add(run));
		long outOfOrder = 0;
		for (List<QueueTaskRun> group : byGroup.values()) {
			group.sort(Comparator.comparingLong(QueueTaskRun::startMicros).thenComparingLong(QueueTaskRun::endMicros));
			int latest = -1;
			for (QueueTaskRun run : group) {
				if (run.sequence() < latest) {
					outOfOrder++;
				}
				latest = Math.max(latest, run.sequence());
			}
		}
		return outOfOrder;
	}

	/**
	 * What one drain check ({@code stats}) costs Redis: its EVALSHA and the commands the script
	 * runs. The fewest of three checks, so that a command an idle worker sends meanwhile, or a
	 * script sent in full the first time, does not count.
	 */
	static long commandsOfOneCheck(BenchmarkRedis redis, RedisSerialQueue queue, String name) {
		long fewest = Long.MAX_VALUE;
		for (int check = 0; check < 3; check++) {
			CommandCounts before = redis.commandsExecuted();
			queue.stats(name);
			fewest = Math.min(fewest, redis.commandsExecuted().since(before).total());
		}
		return fewest;
	}

}
