package dev.lockstep.benchmark;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * C16: sixteen threads, each with a client of its own (sixteen processes in miniature), all on
 * one key. Measures how fast the lock moves from holder to holder, how long a waiter waits, and
 * what each hand-off costs Redis. The raw client busy-spins here: the floor a polite waiter
 * should beat.
 */
final class SingleKeyContentionScenario implements Scenario {

	static final int CLIENTS = 16;

	static final Metric HANDOFFS = Metric.rate("hand-offs/s");

	static final Metric ACQUISITIONS = Metric.rate("acquisitions/s");

	static final Metric WAIT_P99 = Metric.cost("p99 wait ms");

	static final Metric COMMANDS = Metric.cost("Redis commands/hand-off");

	@Override
	public Definition definition() {
		return new Definition("C16", CLIENTS + " threads on one key, a client each: hand-offs between threads per second",
				List.of(Library.LOCKSTEP, Library.RAW, Library.REDISSON, Library.REGISTRY_PUB_SUB),
				List.of(HANDOFFS, ACQUISITIONS, WAIT_P99, COMMANDS, Metric.overlaps()));
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		LockLoop.Window window = LockLoop.onOneKey(library, CLIENTS, context.key("c16"), context, "bench-c16-" + library.id());
		return new RunResult().with(HANDOFFS.name(), window.perSecond(window.handoffs()))
			.with(ACQUISITIONS.name(), window.perSecond(window.acquisitions()))
			.with(WAIT_P99.name(), window.waitMicros().getValueAtPercentile(99) / 1000.0)
			.with(COMMANDS.name(), window.commandsPer(window.handoffs()))
			.withOverlaps(window.overlaps())
			.withNote("per hand-off: " + window.commands().per(window.handoffs()));
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		Double handoffs = results.figure(Library.LOCKSTEP, HANDOFFS);
		return List.of(
				TargetCheck.atLeast(id(), "Lockstep ≥ 4x Redisson hand-offs/s", handoffs, 4.0,
						results.figure(Library.REDISSON, HANDOFFS)),
				TargetCheck.atLeast(id(), "Lockstep above the raw busy-spin floor", handoffs, 1.0,
						results.figure(Library.RAW, HANDOFFS)),
				// compared as printed: the hand-off path itself runs exactly 8 (the waiter's EVALSHA, GET,
				// RPUSH; the release's EVALSHA, GET, LPOP, SET, PUBLISH), and the run's first acquisition
				// and its few heartbeats add about one command per thousand hand-offs
				TargetCheck.atMostValue(id(), "Lockstep ≤ 9 commands/hand-off (to 2 decimals)",
						roundedToHundredths(results.figure(Library.LOCKSTEP, COMMANDS)), 9.0));
	}

	private static @Nullable Double roundedToHundredths(@Nullable Double value) {
		return (value != null) ? Math.round(value * 100) / 100.0 : null;
	}

}
