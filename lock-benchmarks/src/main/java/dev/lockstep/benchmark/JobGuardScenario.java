package dev.lockstep.benchmark;

import java.util.List;
import java.util.Locale;

/**
 * F and F-CRON: what guarding a scheduled job costs per firing, Lockstep's {@code @JobGuard}
 * against ShedLock's Redis provider, for an empty job on one instance (every firing runs). F
 * fires without a cron slot (a direct call through the proxy, the path of fixed-rate and
 * fixed-delay firings too); F-CRON fires as a cron schedule would, each firing with a slot of its
 * own, which Lockstep records so that no instance runs it twice. ShedLock treats both alike.
 */
final class JobGuardScenario implements Scenario {

	static final Metric FIRINGS = Metric.rate("firings/s");

	static final Metric P50 = Metric.latencyPercentileMicros("p50 µs/firing", 50);

	static final Metric P99 = Metric.latencyPercentileMicros("p99 µs/firing", 99);

	static final Metric CPU = Metric.cost("JVM CPU µs/firing");

	static final Metric REDIS_CPU = Metric.cost("Redis CPU µs/firing");

	static final Metric COMMANDS = Metric.cost("Redis commands/firing");

	private final boolean cron;

	/** @param cron whether firings carry a cron slot (F-CRON) or none (F) */
	JobGuardScenario(boolean cron) {
		this.cron = cron;
	}

	@Override
	public Definition definition() {
		return new Definition(this.cron ? "F-CRON" : "F",
				"job guard overhead per firing of an empty job, one thread, one instance: " + (this.cron
						? "cron firings, each with a slot of its own"
						: "firings without a cron slot (a direct call through the proxy; fixed-rate and fixed-delay firings "
								+ "take the same path)"),
				List.of(Library.LOCKSTEP, Library.SHEDLOCK),
				List.of(FIRINGS, P50, P99, CPU, REDIS_CPU, COMMANDS));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		String namespace = context.key(id().toLowerCase(Locale.ROOT));
		try (GuardedJobClient client = connect(library, context.redis(), namespace)) {
			FiringLoop.Window window = FiringLoop.run(client, context.redis(), context.settings().warmup(),
					context.settings().measure());
			return new RunResult().with(FIRINGS.name(), window.perSecond())
				.with(CPU.name(), window.per(window.cost().jvmCpuMicros()))
				.with(REDIS_CPU.name(), window.per(window.cost().redisCpuMicros()))
				.with(COMMANDS.name(), window.per(window.cost().commands().total()))
				.withLatencies(window.micros())
				.withNote(String.format(Locale.ROOT, "%d firings, µs: p50 %d, p99 %d, max %d; per firing: %s",
						window.firings(), window.micros().getValueAtPercentile(50),
						window.micros().getValueAtPercentile(99), window.micros().getMaxValue(),
						window.cost().commands().per(window.firings())));
		}
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		return List.of(
				TargetCheck.atLeast(id(), "Lockstep ≥ ShedLock's firings/s", results.figure(Library.LOCKSTEP, FIRINGS), 1.0,
						results.figure(Library.SHEDLOCK, FIRINGS)),
				// the slot election, run record and history cost more than ShedLock's SET NX PX and DEL
				// (performance round 3's targets: 1.25x for F, 1.5x for F-CRON)
				TargetCheck.atMost(id(), "Lockstep's Redis CPU per firing ≤ " + (this.cron ? "1.5" : "1.25") + "x ShedLock's",
						results.figure(Library.LOCKSTEP, REDIS_CPU), this.cron ? 1.5 : 1.25,
						results.figure(Library.SHEDLOCK, REDIS_CPU)));
	}

	private GuardedJobClient connect(Library library, BenchmarkRedis redis, String namespace) {
		return switch (library) {
			case LOCKSTEP -> new LockstepJobGuardClient(redis, namespace + ":", this.cron);
			case SHEDLOCK -> new ShedLockJobClient(redis, namespace);
			default -> throw new IllegalArgumentException(library.title() + " has no job guard");
		};
	}

}
