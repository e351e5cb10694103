package dev.lockstep.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The command line of a benchmark run.
 * @param arguments the arguments as given, for the report
 * @param settings durations and counts
 * @param scenarios ids of the scenarios to run; empty for all
 * @param libraries the libraries to run (Lockstep always among them)
 * @param output a file to write the report to besides standard output, or null
 */
record BenchmarkOptions(List<String> arguments, BenchmarkSettings settings, Set<String> scenarios,
		Set<Library> libraries, @Nullable Path output) {

	static final String USAGE = """
			Options:
			  --quick                 a smoke run: 1 round, 1 s windows, 30 timed hand-offs, 1 group job, short warm-ups
			  --rounds N              rounds (default 3)
			  --measure-seconds S     measured window of A, B, C16, F and F-CRON (default 3)
			  --trials N              timed hand-offs per library in D over all rounds (default 500)
			  --group-jobs N          measured jobs per library and round in E (default 3)
			  --scenarios A,C16,...   scenarios to run: A, B, C16, D, E, F, F-CRON, G, H-HELD, H-WAITERS, H-KEYS,
			                          I-RATE, I-PERMIT (default all)
			  --libraries a,b         libraries besides lockstep: raw, redisson, redisson-fair, registry-pubsub,
			                          registry-spin, shedlock, redisson-rate, bucket4j,
			                          redisson-permits
			  --output FILE           also write the report to FILE
			""";

	static BenchmarkOptions parse(String... args) {
		List<String> arguments = List.of(args);
		BenchmarkSettings settings = arguments.contains("--quick") ? BenchmarkSettings.quick() : BenchmarkSettings.full();
		Set<String> scenarios = new LinkedHashSet<>();
		Set<Library> libraries = EnumSet.allOf(Library.class);
		Path output = null;
		for (int i = 0; i < args.length; i++) {
			String option = args[i];
			switch (option) {
				case "--quick" -> {
					// applied first, so that other options can refine it
				}
				case "--rounds" -> settings = settings.withRounds(positive(option, value(args, ++i, option)));
				case "--measure-seconds" -> settings = settings
					.withMeasure(Duration.ofMillis((long) (Double.parseDouble(value(args, ++i, option)) * 1000)));
				case "--trials" -> settings = settings.withLatencyTrials(positive(option, value(args, ++i, option)));
				case "--group-jobs" -> settings = settings.withGroupJobs(positive(option, value(args, ++i, option)));
				case "--scenarios" -> scenarios.addAll(list(value(args, ++i, option).toUpperCase(Locale.ROOT)));
				case "--libraries" -> {
					libraries = EnumSet.of(Library.LOCKSTEP);
					for (String id : list(value(args, ++i, option))) {
						libraries.add(Library.byId(id));
					}
				}
				case "--output" -> output = Path.of(value(args, ++i, option));
				default -> throw new IllegalArgumentException("Unknown option '" + option + "'\n" + USAGE);
			}
		}
		return new BenchmarkOptions(arguments, settings, scenarios, libraries, output);
	}

	boolean runs(Scenario scenario) {
		return this.scenarios.isEmpty() || this.scenarios.contains(scenario.id());
	}

	private static String value(String[] args, int index, String option) {
		if (index >= args.length || args[index].startsWith("--")) {
			throw new IllegalArgumentException("Option " + option + " needs a value\n" + USAGE);
		}
		return args[index];
	}

	private static int positive(String option, String value) {
		int number = Integer.parseInt(value);
		if (number < 1) {
			throw new IllegalArgumentException("Option " + option + " must be at least 1: " + value);
		}
		return number;
	}

	private static List<String> list(String value) {
		return new ArrayList<>(Arrays.stream(value.split(",")).map(String::trim).filter((item) -> !item.isEmpty()).toList());
	}

}
