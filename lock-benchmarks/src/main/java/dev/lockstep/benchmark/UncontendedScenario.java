package dev.lockstep.benchmark;

import java.util.List;

/**
 * A: one thread takes and releases one free lock over and over. The cost of a lock nobody else
 * wants, which is what most locks in a service are most of the time.
 */
final class UncontendedScenario implements Scenario {

	private static final Metric PAIRS = Metric.rate("pairs/s");

	private static final Metric COMMANDS = Metric.cost("Redis commands/pair");

	@Override
	public Definition definition() {
		// the spin and pub/sub modes of RedisLockRegistry take a free lock the same way
		return new Definition("A", "uncontended acquire+release pairs per second, 1 thread",
				List.of(Library.LOCKSTEP, Library.RAW, Library.REDISSON, Library.REGISTRY_PUB_SUB),
				List.of(PAIRS, COMMANDS));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		LockLoop.Window window = LockLoop.onOneKey(library, 1, context.key("a"), context, "bench-a-" + library.id());
		return new RunResult().with(PAIRS.name(), window.perSecond(window.acquisitions()))
			.with(COMMANDS.name(), window.commandsPer(window.acquisitions()))
			.withOverlaps(window.overlaps())
			.withNote("per pair: " + window.commands().per(window.acquisitions()));
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		Double lockstep = results.figure(Library.LOCKSTEP, PAIRS);
		return List.of(
				TargetCheck.atLeast(id(), "Lockstep ≥ Redisson", lockstep, 1.0, results.figure(Library.REDISSON, PAIRS)),
				TargetCheck.atLeast(id(), "Lockstep ≥ 0.85x raw", lockstep, 0.85, results.figure(Library.RAW, PAIRS)));
	}

}
