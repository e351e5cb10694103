package dev.lockstep.benchmark;

import java.util.List;

/**
 * B: sixteen threads of one client, each on a key of its own. Many unrelated locks in one busy
 * service: what matters is how well one client's connection carries concurrent lock traffic.
 */
final class DistinctKeysScenario implements Scenario {

	static final int THREADS = 16;

	private static final Metric PAIRS = Metric.rate("pairs/s");

	@Override
	public Definition definition() {
		return new Definition("B", THREADS + " threads on distinct keys, one client: acquire+release pairs per second",
				List.of(Library.LOCKSTEP, Library.RAW, Library.REDISSON, Library.REGISTRY_PUB_SUB),
				List.of(PAIRS));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		try (LockClient client = library.connect(context.redis())) {
			LockLoop.Window window = new LockLoop(THREADS, (thread) -> client, (thread) -> context.key("b" + thread))
				.run(context, "bench-b-" + library.id());
			return new RunResult().with(PAIRS.name(), window.perSecond(window.acquisitions()))
				.withOverlaps(window.overlaps());
		}
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		return List.of(TargetCheck.atLeast(id(), "Lockstep ≥ 0.8x raw", results.figure(Library.LOCKSTEP, PAIRS), 0.8,
				results.figure(Library.RAW, PAIRS)));
	}

}
