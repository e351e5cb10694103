package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import static dev.lockstep.benchmark.TaskMetrics.COMMANDS;
import static dev.lockstep.benchmark.TaskMetrics.MAKESPAN;
import static dev.lockstep.benchmark.TaskMetrics.OUT_OF_SUBMISSION_ORDER;
import static dev.lockstep.benchmark.TaskMetrics.REDIS_CPU;
import static dev.lockstep.benchmark.TaskMetrics.VERSUS_IDEAL;

/**
 * E: serial groups across processes, the workload of the import service in field report 1.
 * Two child JVMs ({@link SerialGroupWorker}) with sixteen worker threads each submit 64 groups of
 * 50 tasks of 5 ms, each JVM every other task of every group (see {@link GroupJob}). Measures the
 * makespan against the ideal and what each task cost in CPU time and Redis commands, and checks
 * from the recorded task times that no group ever ran two tasks at once or let a later task
 * overtake an earlier one.
 *
 * <p>The worker JVMs start with the first run and serve every run of every round; each run
 * opens its clients in them and closes them afterwards, and (but for a quick run) one unrecorded
 * job warms them first, {@value #FIRST_RUN_EXTRA_WARMUP_JOBS} more in a library's first run (the
 * JIT is still compiling the client code for that long: makespans fall over the first fifty jobs).
 */
final class SerialGroupScenario implements Scenario {

	static final int GROUPS = 64;

	static final int TASKS_PER_GROUP = 50;

	static final long WORK_MICROS = 5_000;

	static final int JVMS = 2;

	static final int THREADS = 16;

	static final Metric FREE_LOCK_FLOOR = Metric.reference("free lock's makespan / ideal");

	/** The spread behind the median: the slowest measured job of all rounds. */
	static final Metric SLOWEST = Metric.highest("makespan / ideal, slowest job");

	/** And the fastest. */
	static final Metric FASTEST = Metric.lowest("makespan / ideal, fastest job");

	static final Metric WORKER_CPU = Metric.cost("worker JVMs' CPU µs/task");

	private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

	private static final Duration JOB_TIMEOUT = Duration.ofMinutes(3);

	/**
	 * Unrecorded jobs more in a library's first run in fresh worker JVMs. A worker JVM profiled in
	 * scenario Q spent half its CPU in the JIT compiler through its first 100,000 tasks or so; in E
	 * on two shared cores the makespans still fell after the twentieth job and settled after about
	 * the fiftieth (each job is 3,200 tasks and takes under a second).
	 */
	private static final int FIRST_RUN_EXTRA_WARMUP_JOBS = 60;

	private final WorkerJvms workers = new WorkerJvms("bench-e-worker", SerialGroupWorker.class, JVMS);

	/** The libraries that have run in the current workers. */
	private final Set<Library> warmed = EnumSet.noneOf(Library.class);

	@Override
	public Definition definition() {
		return new Definition("E", String.format(Locale.ROOT,
						"serial groups: %d groups x %d tasks of %d ms from %d JVMs x %d threads, every other task of a group "
								+ "on the other JVM; makespan against the ideal of %d ms",
						GROUPS, TASKS_PER_GROUP, WORK_MICROS / 1000, JVMS, THREADS, job("ideal").idealMicros() / 1000),
				List.of(Library.LOCKSTEP, Library.REDISSON_FAIR),
				List.of(MAKESPAN, VERSUS_IDEAL, SLOWEST, FASTEST, FREE_LOCK_FLOOR, WORKER_CPU, REDIS_CPU, COMMANDS,
						OUT_OF_SUBMISSION_ORDER, Metric.overlaps()));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		List<GroupWorkerProcess> workers = this.workers.running(context.redis());
		boolean clean = false;
		try {
			GroupWorkerProcess.sendAll(workers, "open " + library.id(), "opened", START_TIMEOUT);
			String name = context.key("e-" + library.id());
			int warmups = warmUp(workers, name, library, context);
			List<MeasuredJob> jobs = new ArrayList<>();
			for (int index = 1; index <= context.settings().groupJobs(); index++) {
				jobs.add(runJob(workers, job(name + "-j" + index), context.redis()));
			}
			GroupWorkerProcess.sendAll(workers, "close", "closed", START_TIMEOUT);
			clean = true;
			return result(jobs, warmups);
		}
		finally {
			if (!clean) {
				// a worker in an unknown state serves no further run: the next run starts new ones
				close();
			}
		}
	}

	/**
	 * Runs the unrecorded jobs before this run's measured ones and says how many it ran: more in the
	 * library's first run in these workers, which starts on code the JIT has not compiled yet (the
	 * first library of round 1 would otherwise also run on freshly started JVMs).
	 */
	private int warmUp(List<GroupWorkerProcess> workers, String name, Library library, RunContext context)
			throws InterruptedException {
		int jobs = context.settings().groupWarmupJobs();
		if (jobs > 0 && this.warmed.add(library)) {
			jobs += FIRST_RUN_EXTRA_WARMUP_JOBS;
		}
		for (int index = 1; index <= jobs; index++) {
			runJob(workers, job(name + "-w" + index), context.redis());
		}
		return jobs;
	}

	private static GroupJob job(String name) {
		return new GroupJob(name, GROUPS, TASKS_PER_GROUP, WORK_MICROS, JVMS, THREADS);
	}

	/** Prepares the job in every JVM, starts them all at once and collects their task runs. */
	private static MeasuredJob runJob(List<GroupWorkerProcess> workers, GroupJob job, BenchmarkRedis redis)
			throws InterruptedException {
		GroupWorkerProcess.sendAll(workers, "job " + job.toLine(), "ready", START_TIMEOUT);
		CostMeter meter = CostMeter.start(redis);
		workers.forEach((worker) -> worker.send("go"));
		List<GroupTaskRun> runs = new ArrayList<>();
		long start = Long.MAX_VALUE;
		long workerCpu = 0;
		for (GroupWorkerProcess worker : workers) {
			String[] done = worker.await("done", (answer) -> runs.add(GroupTaskRun.parse(task(answer))), JOB_TIMEOUT)
				.split(" ");
			start = Math.min(start, Long.parseLong(done[0]));
			workerCpu += Long.parseLong(done[1]);
		}
		CostMeter.Cost cost = meter.stop();
		return new MeasuredJob(GroupJobTimeline.of(job, runs, start), FreeLockFloor.makespanMicros(job, runs), cost.commands(),
				workerCpu, cost.redisCpuMicros());
	}

	private static String task(String answer) {
		if (!answer.startsWith("task ")) {
			throw new IllegalStateException("Expected a task run, got '" + answer + "'");
		}
		return answer.substring("task ".length());
	}

	private static RunResult result(List<MeasuredJob> jobs, int warmups) {
		long ideal = job("ideal").idealMicros();
		long tasks = (long) GROUPS * TASKS_PER_GROUP;
		List<RunResult> perJob = new ArrayList<>();
		CommandCounts commands = new CommandCounts(Map.of());
		long overlaps = 0;
		for (MeasuredJob job : jobs) {
			GroupJobTimeline timeline = job.timeline();
			perJob.add(new RunResult().with(MAKESPAN.name(), timeline.makespanMicros() / 1000.0)
				.with(VERSUS_IDEAL.name(), (double) timeline.makespanMicros() / ideal)
				.with(FREE_LOCK_FLOOR.name(), (double) job.freeLockMakespanMicros() / ideal)
				.with(OUT_OF_SUBMISSION_ORDER.name(), timeline.outOfOrder())
				.with(WORKER_CPU.name(), (double) job.workerCpuMicros() / tasks)
				.with(REDIS_CPU.name(), (double) job.redisCpuMicros() / tasks));
			commands = commands.plus(job.commands());
			overlaps += timeline.overlaps();
		}
		String makespans = jobs.stream()
			.map((job) -> String.format(Locale.ROOT, "%.0f", job.timeline().makespanMicros() / 1000.0))
			.collect(Collectors.joining(", "));
		double meanWork = jobs.stream().mapToDouble((job) -> job.timeline().meanWorkMicros()).average().orElse(Double.NaN);
		RunResult result = new RunResult();
		for (Metric metric : List.of(MAKESPAN, VERSUS_IDEAL, FREE_LOCK_FLOOR, OUT_OF_SUBMISSION_ORDER, WORKER_CPU, REDIS_CPU)) {
			result.with(metric.name(), Metric.median(perJob, metric.name()));
		}
		result.with(SLOWEST.name(), perJob.stream().mapToDouble((job) -> job.value(VERSUS_IDEAL.name())).max().orElse(Double.NaN));
		result.with(FASTEST.name(), perJob.stream().mapToDouble((job) -> job.value(VERSUS_IDEAL.name())).min().orElse(Double.NaN));
		return result.with(COMMANDS.name(), (double) commands.total() / (tasks * jobs.size()))
			.withOverlaps(overlaps)
			.withNote(String.format(Locale.ROOT, "%d unrecorded jobs; makespans ms: %s; mean task %.2f ms; per task: %s", warmups, makespans,
					meanWork / 1000, commands.per(tasks * jobs.size())));
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		return List.of(
				TargetCheck.atMostValue(id(), "Lockstep makespan ≤ 1.25x the ideal",
						results.figure(Library.LOCKSTEP, VERSUS_IDEAL), 1.25),
				TargetCheck.atMostValue(id(), "Lockstep makespan within 0.2 of the free lock's floor",
						difference(results.figure(Library.LOCKSTEP, VERSUS_IDEAL), results.figure(Library.LOCKSTEP, FREE_LOCK_FLOOR)),
						0.2),
				TargetCheck.atMost(id(), "Lockstep makespan ahead of Redisson RFairLock's",
						results.figure(Library.LOCKSTEP, MAKESPAN), 1.0, results.figure(Library.REDISSON_FAIR, MAKESPAN)));
	}

	private static @Nullable Double difference(@Nullable Double value, @Nullable Double floor) {
		return (value != null && floor != null) ? value - floor : null;
	}

	/**
	 * What one measured job showed and cost; {@code freeLockMakespanMicros} is its
	 * {@link FreeLockFloor}.
	 */
	private record MeasuredJob(GroupJobTimeline timeline, long freeLockMakespanMicros, CommandCounts commands,
			long workerCpuMicros, long redisCpuMicros) {
	}

	@Override
	public void close() {
		this.workers.close();
		this.warmed.clear();
	}

}
