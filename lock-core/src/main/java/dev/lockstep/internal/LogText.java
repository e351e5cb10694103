package dev.lockstep.internal;

import org.jspecify.annotations.Nullable;

/**
 * Names that may come from a request (lock keys, group names, queue names), made safe to put in a
 * log line or an exception message: control characters (line breaks, tabs, escape sequences) and
 * the Unicode line and paragraph separators are written as escapes ({@code \n}, {@code \u001b}),
 * so that a key cannot forge a log line or drive a terminal. Everything else is left as it is.
 * Internal to Lockstep.
 */
public final class LogText {

	private LogText() {
	}

	/** {@code value} with its control characters escaped; the same string when it has none. */
	public static String of(@Nullable String value) {
		if (value == null) {
			return "null";
		}
		int first = firstToEscape(value);
		if (first < 0) {
			return value;
		}
		StringBuilder escaped = new StringBuilder(value.length() + 8).append(value, 0, first);
		for (int i = first; i < value.length(); i++) {
			char c = value.charAt(i);
			if (!needsEscape(c)) {
				escaped.append(c);
			}
			else if (c == '\n') {
				escaped.append("\\n");
			}
			else if (c == '\r') {
				escaped.append("\\r");
			}
			else if (c == '\t') {
				escaped.append("\\t");
			}
			else {
				escaped.append(String.format("\\u%04x", (int) c));
			}
		}
		return escaped.toString();
	}

	private static int firstToEscape(String value) {
		for (int i = 0; i < value.length(); i++) {
			if (needsEscape(value.charAt(i))) {
				return i;
			}
		}
		return -1;
	}

	private static boolean needsEscape(char c) {
		return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
	}

}
