package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.queue.RedisSerialQueue;

import static dev.lockstep.benchmark.TaskMetrics.COMMANDS;
import static dev.lockstep.benchmark.TaskMetrics.MAKESPAN;
import static dev.lockstep.benchmark.TaskMetrics.OUT_OF_SUBMISSION_ORDER;
import static dev.lockstep.benchmark.TaskMetrics.REDIS_CPU;
import static dev.lockstep.benchmark.TaskMetrics.VERSUS_IDEAL;

/**
 * G: field report 1's import pipeline with a hot group. One group with 2,000 tasks and 200 groups
 * with 5 tasks each, 2 ms of work per task, arriving interleaved (two hot tasks to one cold one).
 * Lockstep's serial queue runs them on two worker JVMs of 8 workers each ({@link QueueWorker}),
 * submitted from this JVM; the blocking designs run them on 16 threads of this JVM, which take the
 * tasks in arrival order (all there from the start) and wait for the group's turn: Lockstep's
 * {@code @SerialGroup}, Redisson's {@code RFairLock} per group, and field report 1's own design (one
 * Redis list, a global queue lock taken with SET NX, a scan from the oldest message for one whose
 * group lock is free, 800 ms sleeps when the queue lock is busy or nothing is free; stopped after a
 * minute, its makespan then projected). Measures the makespan against the ideal (the hot group's
 * 4 s), how long cold tasks waited to start, and Redis commands and CPU per task.
 */
final class SerialQueueScenario implements Scenario {

	static final int WORKER_JVMS = 2;

	static final int WORKERS_PER_JVM = 8;

	static final int THREADS = 16;

	static final Metric COLD_P99 = Metric.latencyPercentile("p99 cold submit-to-start ms", 99);

	private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

	/** How often the queue's counts are read to see it drained (5 ms before: 1,000 view scripts a run). */
	private static final Duration DRAIN_CHECK_EVERY = Duration.ofMillis(100);

	private static final int FIRST_RUN_EXTRA_WARMUPS = 3;

	private final WorkerJvms workers = new WorkerJvms("bench-g-worker", QueueWorker.class, WORKER_JVMS);

	/** The libraries that have run since the worker JVMs started. */
	private final java.util.Set<Library> warmed = java.util.EnumSet.noneOf(Library.class);

	private String describe() {
		QueueWorkload full = QueueWorkload.full();
		return String.format(Locale.ROOT, "serial queue: 1 hot group of %d tasks and %d cold groups of %d, %d ms each; "
				+ "the queue on %d JVMs x %d workers, the blocking designs on %d threads; ideal %d ms",
				full.hotTasks(), full.coldGroups(), full.coldTasks(), full.workMicros() / 1000, WORKER_JVMS, WORKERS_PER_JVM,
				THREADS, full.idealMicros() / 1000);
	}

	@Override
	public Definition definition() {
		return new Definition("G", describe(),
				List.of(Library.LOCKSTEP, Library.LOCKSTEP_SERIAL_GROUP, Library.REDISSON_FAIR, Library.FIELD_REPORT_QUEUE),
				List.of(MAKESPAN, VERSUS_IDEAL, COLD_P99, COMMANDS, REDIS_CPU, QueueCostScenario.EMPTY_TAKES,
						QueueCostScenario.WOKEN_MISSES, OUT_OF_SUBMISSION_ORDER, Metric.overlaps()));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		QueueWorkload workload = context.settings().isQuick() ? QueueWorkload.quick() : QueueWorkload.full();
		String name = context.key("g-" + library.id());
		if (!context.settings().isQuick() && library != Library.FIELD_REPORT_QUEUE) {
			// the worker JVMs' first run starts on code the JIT has not compiled: more warm-up there
			int warmups = this.warmed.add(library) ? 1 + FIRST_RUN_EXTRA_WARMUPS : 1;
			for (int i = 1; i <= warmups; i++) {
				measure(library, name + "-w" + i, QueueWorkload.warmup(), context);
			}
		}
		return measure(library, name, workload, context).result(workload);
	}

	private QueueMeasurement measure(Library library, String name, QueueWorkload workload, RunContext context) throws Exception {
		return switch (library) {
			case LOCKSTEP -> queue(name, workload, context.redis());
			case LOCKSTEP_SERIAL_GROUP, REDISSON_FAIR -> blocking(library, name, workload, context.redis());
			case FIELD_REPORT_QUEUE -> FieldReportQueue.run(name, workload, context.redis(),
					context.settings().isQuick() ? Duration.ofSeconds(5) : Duration.ofMinutes(1));
			default -> throw new IllegalArgumentException(library.title() + " is not in scenario G");
		};
	}

	/** Lockstep's serial queue: submitted here, run by the worker JVMs. */
	private QueueMeasurement queue(String name, QueueWorkload workload, BenchmarkRedis redis) throws Exception {
		List<GroupWorkerProcess> jvms = this.workers.running(redis);
		GroupWorkerProcess.sendAll(jvms, "listen " + name + " " + WORKERS_PER_JVM, "listening", START_TIMEOUT);
		LettuceConnectionFactory connections = redis.connect();
		RedisSerialQueue submitter = LockstepServices.queue(connections);
		try {
			long commandsPerPoll = QueueDrain.commandsOfOneCheck(redis, submitter, name);
			CostMeter meter = CostMeter.start(redis);
			long start = GroupTaskRun.nowMicros();
			for (QueueTask task : workload.arrivals()) {
				submitter.submit(name, Integer.toString(task.group()),
						new QueueTask(task.group(), task.sequence(), task.workMicros(), GroupTaskRun.nowMicros()));
			}
			// the makespan is the runs' (their end times), not this check's: read seldom, so that the
			// check takes little of the two cores and of Redis from the workers it measures
			long polls = QueueDrain.awaitDrained(submitter, name, DRAIN_CHECK_EVERY, Duration.ofMinutes(3));
			CostMeter.Cost cost = meter.stop();
			CommandCounts commands = cost.commands();
			List<QueueTaskRun> runs = QueueDrain.collectRuns(jvms);
			GroupWorkerProcess.sendAll(jvms, "stop", "stopped", START_TIMEOUT);
			// the drain check's own reads are not the queue's cost
			return new QueueMeasurement(start, runs, commands.total() - polls * commandsPerPoll, commands.per(workload.tasks()),
					QueueDrain.emptyTakes(commands), QueueDrain.wokenMisses(commands), cost.redisCpuMicros());
		}
		finally {
			connections.destroy();
		}
	}

	/** A blocking design: 16 threads take the tasks in arrival order and wait for their group's turn. */
	private static QueueMeasurement blocking(Library library, String name, QueueWorkload workload, BenchmarkRedis redis) throws Exception {
		Queue<QueueTask> arrivals = new ConcurrentLinkedQueue<>(workload.arrivals());
		Queue<QueueTaskRun> runs = new ConcurrentLinkedQueue<>();
		List<Exception> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
		try (SerialGroupClient client = SerialGroupClient.connect(library, redis.host(), redis.port())) {
			CostMeter meter = CostMeter.start(redis);
			long start = GroupTaskRun.nowMicros();
			CountDownLatch done = new CountDownLatch(THREADS);
			for (int t = 0; t < THREADS; t++) {
				Thread thread = new Thread(() -> {
					try {
						for (QueueTask task = arrivals.poll(); task != null; task = arrivals.poll()) {
							QueueTask current = task;
							client.run(name + ":" + task.group(), () -> {
								long begin = GroupTaskRun.nowMicros();
								LockSupport.parkNanos(current.workMicros() * 1000);
								runs.add(new QueueTaskRun(current.group(), current.sequence(), start, begin,
										GroupTaskRun.nowMicros()));
							});
						}
					}
					catch (Exception ex) {
						failures.add(ex);
					}
					finally {
						done.countDown();
					}
				}, "bench-g-" + t);
				thread.setDaemon(true);
				thread.start();
			}
			if (!done.await(5, TimeUnit.MINUTES)) {
				throw new IllegalStateException(library.title() + " did not finish scenario G in 5 minutes");
			}
			if (!failures.isEmpty()) {
				throw failures.get(0);
			}
			CostMeter.Cost cost = meter.stop();
			return new QueueMeasurement(start, new ArrayList<>(runs), cost.commands().total(),
					cost.commands().per(workload.tasks()), cost.redisCpuMicros());
		}
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		return List.of(
				TargetCheck.atMostValue(id(), "Lockstep queue makespan ≤ 1.2x the ideal",
						results.figure(Library.LOCKSTEP, VERSUS_IDEAL), 1.2),
				TargetCheck.atMostValue(id(), "Lockstep queue p99 cold submit-to-start < 25 ms",
						results.figure(Library.LOCKSTEP, COLD_P99), 25),
				TargetCheck.atMostValue(id(), "Lockstep queue ≤ 15 Redis commands/task", results.figure(Library.LOCKSTEP, COMMANDS),
						15));
	}

	@Override
	public void close() {
		this.workers.close();
		this.warmed.clear();
	}

}
