package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.queue.QueueSettings;

import static dev.lockstep.benchmark.TaskMetrics.COMMANDS;
import static dev.lockstep.benchmark.TaskMetrics.REDIS_CPU;

/**
 * Q: the queue against BullMQ. 100,000 tasks of no work through one queue, run by 2 worker
 * processes of 8 workers each (Lockstep: {@link QueueWorker} JVMs; BullMQ: Node processes of one
 * {@code Worker} of concurrency 8, through {@link BullMqDriver}), the tasks spread over 1,000
 * groups for Lockstep (BullMQ has no groups). The tasks are all submitted first, then the workers
 * drain them: tasks/s over the drain, Redis commands and CPU per task over submit and drain
 * together, and Redis memory per waiting task with 1,000,000 tasks queued (filled apart, no
 * worker running, then flushed).
 */
final class QueueCostScenario implements Scenario {

	static final int TASKS = 100_000;

	static final int GROUPS = 1_000;

	static final int MEMORY_TASKS = 1_000_000;

	static final Metric TASKS_PER_SECOND = Metric.rate("tasks/s");

	static final Metric MEMORY = Metric.cost("Redis memory bytes/waiting task");

	static final Metric EMPTY_TAKES = Metric.cost("takes that found nothing/task").onlyLockstep();

	/** Wake-ups wasted: a woken worker's take that found no group waiting (another worker took it first). */
	static final Metric WOKEN_MISSES = Metric.cost("woken takes that found nothing/task").onlyLockstep();

	static final Metric OUT_OF_ORDER = Metric.count("tasks out of group order").onlyLockstep();

	private final WorkerJvms workers = new WorkerJvms("bench-q-worker", QueueWorker.class, SerialQueueScenario.WORKER_JVMS);

	@Override
	public Definition definition() {
		return new Definition("Q", TASKS + " tasks of no work through one queue, 2 worker processes x 8 (Lockstep over " + GROUPS
				+ " groups, BullMQ without groups): throughput, Redis cost, memory per waiting task",
				List.of(Library.LOCKSTEP, Library.BULLMQ),
				List.of(TASKS_PER_SECOND, REDIS_CPU, COMMANDS, MEMORY, EMPTY_TAKES, OUT_OF_ORDER));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		boolean quick = context.settings().isQuick();
		int tasks = quick ? 5_000 : TASKS;
		int memoryTasks = quick ? 20_000 : MEMORY_TASKS;
		BenchmarkRedis redis = context.redis();
		String queue = context.key("q-" + library.id());
		RunResult result;
		if (library == Library.LOCKSTEP) {
			if (!this.workers.isRunning()) {
				// the worker JVMs' code warms up on a run of its own as large, unrecorded: profiled, fresh worker
				// JVMs spent half their CPU in the JIT compiler through a run after a warm-up a fifth its size
				QueueDrain.lockstep(redis, this.workers.running(redis), queue + "-warm-up", tasks, GROUPS, Duration.ofSeconds(1));
			}
			result = QueueDrain.lockstep(redis, this.workers.running(redis), queue, tasks, GROUPS,
					QueueSettings.DEFAULTS.deduplicationWindow()).result(tasks);
		}
		else if (library == Library.BULLMQ) {
			result = bullMq(redis, queue, tasks);
		}
		else {
			throw new IllegalArgumentException(library.title() + " is not in scenario Q");
		}
		redis.flushAll();
		if (context.round() > 1) {
			// what a waiting task holds does not change from round to round: measured in the first
			return result;
		}
		return result.with(MEMORY.name(), memoryPerWaitingTask(library, redis, queue + "-memory", memoryTasks));
	}

	private static RunResult bullMq(BenchmarkRedis redis, String queue, int tasks) throws Exception {
		BullMqDriver driver = new BullMqDriver(redis);
		try (RedisClient client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
				StatefulRedisConnection<String, String> connection = client.connect()) {
			RedisCommands<String, String> commands = connection.sync();
			CostMeter meter = CostMeter.start(redis);
			driver.fill(queue, tasks, GROUPS);
			long start = System.nanoTime();
			List<BullMqDriver.Worker> started = new ArrayList<>();
			for (int process = 0; process < SerialQueueScenario.WORKER_JVMS; process++) {
				started.add(driver.startWorker(queue, SerialQueueScenario.WORKERS_PER_JVM));
			}
			long polls = 0;
			long deadline = start + TimeUnit.MINUTES.toNanos(10);
			// two LLENs a check: the waiting and the active jobs
			while (commands.llen("bull:" + queue + ":wait") + commands.llen("bull:" + queue + ":active") > 0) {
				polls++;
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("BullMQ's queue " + queue + " did not drain");
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
			}
			polls++;
			double seconds = (System.nanoTime() - start) / 1e9;
			CostMeter.Cost cost = meter.stop();
			long ran = 0;
			for (BullMqDriver.Worker worker : started) {
				ran += worker.stop();
			}
			return new RunResult().with(TASKS_PER_SECOND.name(), tasks / seconds)
				.with(COMMANDS.name(), (double) (cost.commands().total() - 2 * polls) / tasks)
				.with(REDIS_CPU.name(), cost.redisCpuPer(tasks))
				.withNote(ran + " of " + tasks + " jobs ran; per job: " + cost.commands().per(tasks));
		}
	}

	/** Fills {@code tasks} waiting tasks with no worker running: what each adds to Redis's used memory. */
	private static double memoryPerWaitingTask(Library library, BenchmarkRedis redis, String queue, int tasks)
			throws Exception {
		long before = redis.usedMemory();
		if (library == Library.BULLMQ) {
			new BullMqDriver(redis).fill(queue, tasks, GROUPS);
		}
		else {
			LettuceConnectionFactory connections = redis.connect();
			try {
				QueueDrain.submit(LockstepServices.queue(connections), queue, tasks, GROUPS);
			}
			finally {
				connections.destroy();
			}
		}
		double perTask = (double) (redis.usedMemory() - before) / tasks;
		redis.flushAll();
		return perTask;
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		return List.of(
				TargetCheck.atLeast(id(), "Lockstep queue tasks/s ≥ 1.0x BullMQ's",
						results.figure(Library.LOCKSTEP, TASKS_PER_SECOND), 1.0, results.figure(Library.BULLMQ, TASKS_PER_SECOND)),
				TargetCheck.atMost(id(), "Lockstep queue Redis CPU/task ≤ 1.0x BullMQ's", results.figure(Library.LOCKSTEP, REDIS_CPU),
						1.0, results.figure(Library.BULLMQ, REDIS_CPU)),
				TargetCheck.atMost(id(), "Lockstep queue memory/waiting task ≤ 1.0x BullMQ's",
						results.figure(Library.LOCKSTEP, MEMORY), 1.0, results.figure(Library.BULLMQ, MEMORY)),
				TargetCheck.atMostValue(id(), "Lockstep queue takes that found nothing ≤ 0.1/task",
						results.figure(Library.LOCKSTEP, EMPTY_TAKES), 0.1));
	}

	@Override
	public void close() {
		this.workers.close();
	}

}
