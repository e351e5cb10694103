package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * H-HELD: one instance holds many locks at once, each without a lease of its own, so its
 * watchdog keeps them: what the renewals cost Redis while nothing else happens. One thread takes
 * the locks (distinct keys), then the window is measured, then the same thread releases them.
 */
final class ManyHeldLocksScenario implements Scenario {

	static final int LOCKS = 10_000;

	static final Duration HOLD = Duration.ofSeconds(60);

	static final Metric COMMANDS_PER_SECOND = Metric.cost("Redis commands/s while holding");

	static final Metric CPU_PER_SECOND = Metric.cost("Redis CPU ms/s while holding");

	@Override
	public Definition definition() {
		return new Definition("H-HELD", LOCKS + " locks held by one client for " + HOLD.toSeconds()
						+ " s with the library's watchdog (default lease): what keeping them costs Redis",
				List.of(Library.LOCKSTEP, Library.REDISSON),
				List.of(COMMANDS_PER_SECOND, CPU_PER_SECOND));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		int count = context.settings().isQuick() ? 500 : LOCKS;
		Duration hold = context.settings().isQuick() ? Duration.ofSeconds(2) : HOLD;
		BenchmarkRedis redis = context.redis();
		try (LockClient client = library.connect(redis)) {
			List<LockClient.Hold> holds = new ArrayList<>(count);
			try {
				for (int i = 0; i < count; i++) {
					holds.add(client.lock(context.key("h-held-" + i)));
				}
				CostMeter meter = CostMeter.start(redis);
				long start = System.nanoTime();
				TimeUnit.NANOSECONDS.sleep(hold.toNanos());
				long nanos = System.nanoTime() - start;
				CostMeter.Cost cost = meter.stop();
				double seconds = nanos / 1e9;
				return new RunResult().with(COMMANDS_PER_SECOND.name(), cost.commands().total() / seconds)
					.with(CPU_PER_SECOND.name(), cost.redisCpuMicros() / 1000.0 / seconds)
					.withNote(count + " locks for " + hold.toSeconds() + " s; per second: "
							+ cost.commands().per(Math.max(1, Math.round(seconds))));
			}
			finally {
				// released on the thread that took them, as Redisson requires
				holds.forEach(LockClient.Hold::close);
			}
		}
	}

}
