package dev.lockstep.console;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The console's records kept in Redis as one line of tab-separated fields (an instance's locks,
 * a "run now" request): each field written with its tabs and newlines replaced by spaces, so that
 * no field can break the line, and read back with its empty fields kept.
 */
final class TabFields {

	private static final String SEPARATOR = "\t";

	private TabFields() {
	}

	/** The fields, each as its {@code String.valueOf} cleaned of tabs and newlines, as one line. */
	static String join(Object... fields) {
		return Arrays.stream(fields)
			.map((field) -> String.valueOf(field).replace('\t', ' ').replace('\n', ' '))
			.collect(Collectors.joining(SEPARATOR));
	}

	/** The fields of a line {@link #join} wrote, empty ones included. */
	static String[] split(String line) {
		return line.split(SEPARATOR, -1);
	}

}
