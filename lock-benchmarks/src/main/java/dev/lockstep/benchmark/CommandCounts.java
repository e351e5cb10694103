package dev.lockstep.benchmark;

import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * How many times the Redis server executed each command, as {@code INFO commandstats} counts
 * them (Lua-internal calls included), or the difference between two such counts.
 * @param byName calls by command name, e.g. {@code evalsha}, {@code get}, {@code client|setinfo}
 */
record CommandCounts(Map<String, Long> byName) {

	long total() {
		return this.byName.values().stream().mapToLong(Long::longValue).sum();
	}

	/** The commands executed since {@code earlier}. */
	CommandCounts since(CommandCounts earlier) {
		Map<String, Long> difference = new TreeMap<>(this.byName);
		earlier.byName.forEach((name, calls) -> difference.merge(name, -calls, Long::sum));
		difference.values().removeIf((calls) -> calls == 0);
		return new CommandCounts(difference);
	}

	/** These commands and {@code other}'s together. */
	CommandCounts plus(CommandCounts other) {
		Map<String, Long> sum = new TreeMap<>(this.byName);
		other.byName.forEach((name, calls) -> sum.merge(name, calls, Long::sum));
		return new CommandCounts(sum);
	}

	/** The commands per operation, most frequent first, e.g. {@code "evalsha 2.00, get 2.00"}. */
	String per(long operations) {
		if (operations == 0) {
			return "no operations";
		}
		return this.byName.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
			.map((entry) -> String.format(Locale.ROOT, "%s %.2f", entry.getKey(), (double) entry.getValue() / operations))
			.collect(Collectors.joining(", "));
	}

}
