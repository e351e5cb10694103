package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * H-WAITERS: C16's contention on one key with 2, 4, 8 and 16 clients (a client and a thread
 * each): how the Redis commands per hand-off grow with the number of waiters. A lock that wakes
 * only the next waiter costs the same per hand-off however many wait; one that wakes them all
 * pays for every waiter's retry.
 */
final class WaiterGrowthScenario implements Scenario {

	static final int[] CLIENTS = { 2, 4, 8, 16 };

	static final List<Metric> COMMANDS = commandMetrics();

	static final Metric GROWTH = Metric.cost("commands/hand-off, 16 over 2 clients");

	private List<Metric> figures() {
		List<Metric> metrics = new ArrayList<>(COMMANDS);
		metrics.add(GROWTH);
		metrics.add(Metric.overlaps());
		return metrics;
	}

	@Override
	public Definition definition() {
		return new Definition("H-WAITERS", "2, 4, 8 and 16 clients on one key: Redis commands per hand-off as waiters grow",
				List.of(Library.LOCKSTEP, Library.REDISSON, Library.REGISTRY_PUB_SUB),
				figures());
	}

	@Override
	public RunResult run(Library library, RunContext context) throws Exception {
		RunResult result = new RunResult();
		StringBuilder note = new StringBuilder();
		long overlaps = 0;
		double first = Double.NaN;
		double last = Double.NaN;
		for (int i = 0; i < CLIENTS.length; i++) {
			int count = CLIENTS[i];
			LockLoop.Window window = LockLoop.onOneKey(library, count, context.key("h-waiters-" + count), context,
					"bench-h-" + count + "-" + library.id());
			double perHandoff = window.commandsPer(window.handoffs());
			result.with(COMMANDS.get(i).name(), perHandoff);
			overlaps += window.overlaps();
			first = (i == 0) ? perHandoff : first;
			last = perHandoff;
			note.append(String.format(Locale.ROOT, "%s%d clients: %.0f hand-offs/s, %s", (i == 0) ? "" : "; ", count,
					window.perSecond(window.handoffs()), window.commands().per(window.handoffs())));
		}
		result.with(GROWTH.name(), last / first);
		return result.withOverlaps(overlaps).withNote(note.toString());
	}

	@Override
	public List<TargetCheck> targets(ScenarioResults results) {
		return List.of(TargetCheck.atMostValue(id(), "Lockstep's commands/hand-off flat as waiters grow (16 over 2 ≤ 1.25)",
				growth(results), 1.25));
	}

	private static @Nullable Double growth(ScenarioResults results) {
		return results.figure(Library.LOCKSTEP, GROWTH);
	}

	private static List<Metric> commandMetrics() {
		List<Metric> metrics = new ArrayList<>();
		for (int clients : CLIENTS) {
			metrics.add(Metric.cost("Redis commands/hand-off, " + clients + " clients"));
		}
		return List.copyOf(metrics);
	}

}
