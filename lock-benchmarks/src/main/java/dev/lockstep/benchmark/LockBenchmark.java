package dev.lockstep.benchmark;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Measures Lockstep against Redisson, Spring Integration's RedisLockRegistry and a raw SET NX
 * lock on a Redis server it starts itself, and prints a Markdown report. See the module's
 * README.md for the command and what each scenario means.
 */
public final class LockBenchmark {

	private LockBenchmark() {
	}

	/** Runs the benchmark; exits with 1 when a run failed or a lock let two holders in, 2 on bad arguments. */
	public static void main(String[] args) throws IOException {
		BenchmarkOptions options;
		try {
			options = BenchmarkOptions.parse(args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println(ex.getMessage());
			System.exit(2);
			return;
		}
		BenchmarkReport report = run(options, System.err);
		String markdown = report.markdown();
		System.out.println();
		System.out.println(markdown);
		if (options.output() != null) {
			Files.writeString(options.output(), markdown, StandardCharsets.UTF_8);
		}
		// the clients' non-daemon threads are gone, but a library may leave one behind
		System.exit((report.overlaps() > 0 || !report.failures().isEmpty()) ? 1 : 0);
	}

	/** Every scenario in report order. */
	static List<Scenario> scenarios() {
		return List.of(new UncontendedScenario(), new DistinctKeysScenario(), new SingleKeyContentionScenario(),
				new HandoffLatencyScenario(), new SerialGroupScenario(), new JobGuardScenario(false),
				new JobGuardScenario(true), new SerialQueueScenario(), new ManyHeldLocksScenario(), new WaiterGrowthScenario(),
				new KeyMemoryScenario(), new RateLimitScenario(), new PermitScenario(), new QueueCostScenario(),
				new QueueScaleScenario());
	}

	/** Runs the chosen scenarios, round after round, every library once per scenario and round. */
	static BenchmarkReport run(BenchmarkOptions options, PrintStream progress) {
		BenchmarkSettings settings = options.settings();
		List<ScenarioResults> results = new ArrayList<>();
		for (Scenario scenario : scenarios()) {
			if (options.runs(scenario)) {
				results.add(new ScenarioResults(scenario, options.libraries()));
			}
		}
		try (BenchmarkRedis redis = BenchmarkRedis.start()) {
			BenchmarkEnvironment environment = BenchmarkEnvironment.describe(redis);
			progress.println("Redis " + environment.redis() + "; " + environment.machine() + "; " + environment.jvm());
			warmUp(results, redis, settings.libraryWarmup(), progress);
			try {
				for (int round = 1; round <= settings.rounds(); round++) {
					RunContext context = new RunContext(redis, settings, round);
					for (ScenarioResults result : results) {
						for (Library library : rotated(result.libraries(), round)) {
							runOnce(result, library, context, progress);
						}
					}
				}
			}
			finally {
				results.forEach((result) -> result.scenario().close());
			}
			return new BenchmarkReport(environment, command(options), settings, results);
		}
	}

	/** Every library locks a free key for {@code duration}; nothing is recorded. */
	private static void warmUp(List<ScenarioResults> results, BenchmarkRedis redis, Duration duration,
			PrintStream progress) {
		Set<Library> libraries = EnumSet.noneOf(Library.class);
		results.forEach((result) -> libraries.addAll(result.libraries()));
		libraries.removeIf((library) -> !library.hasLockClient());
		for (Library library : libraries) {
			try (LockClient client = library.connect(redis)) {
				LockLoop.Window window = new LockLoop(1, (thread) -> client, (thread) -> "warm-up").run(redis,
						Duration.ZERO, duration, "bench-warm-up-" + library.id());
				progress.printf(Locale.ROOT, "[warm-up] %-26s %.0f pairs/s%n", library.title(),
						window.perSecond(window.acquisitions()));
			}
			catch (Exception ex) {
				// the library's measured runs fail too, and are reported
				progress.println("[warm-up] " + library.title() + " FAILED: " + ex);
			}
		}
	}

	private static void runOnce(ScenarioResults result, Library library, RunContext context, PrintStream progress) {
		Scenario scenario = result.scenario();
		String round = context.round() + "/" + context.settings().rounds();
		String label = String.format(Locale.ROOT, "[round %s] %-4s %-26s", round, scenario.id(), library.title());
		long start = System.nanoTime();
		try {
			RunResult run = scenario.run(library, context);
			result.add(library, run);
			progress.printf(Locale.ROOT, "%s %s (%.1f s)%n", label, run, (System.nanoTime() - start) / 1e9);
		}
		catch (Exception ex) {
			result.failed(library, round, ex);
			progress.println(label + " FAILED: " + ex);
			ex.printStackTrace(progress);
		}
	}

	/** The libraries in a different order each round, so none always runs first on a cold machine. */
	static List<Library> rotated(List<Library> libraries, int round) {
		List<Library> order = new ArrayList<>(libraries);
		if (!order.isEmpty()) {
			Collections.rotate(order, -((round - 1) % order.size()));
		}
		return order;
	}

	private static String command(BenchmarkOptions options) {
		String arguments = String.join(" ", options.arguments());
		if ("maven".equals(System.getProperty("benchmark.launcher"))) {
			return "./mvnw -B -pl lock-benchmarks -am -DskipTests -Pbenchmark verify"
					+ (arguments.isEmpty() ? "" : " -Dbenchmark.args=\"" + arguments + "\"");
		}
		return "java " + LockBenchmark.class.getName() + (arguments.isEmpty() ? "" : " " + arguments);
	}

}
