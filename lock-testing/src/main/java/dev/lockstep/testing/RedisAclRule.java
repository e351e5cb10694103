package dev.lockstep.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The Redis ACL rule Lockstep documents in {@code docs/security.md}, read from that file so that
 * the tests check the rule users copy: {@code ACL SETUSER lockstep on >change-me ~lockstep:* ...},
 * with the user name, password and key prefix of a test put in.
 */
public final class RedisAclRule {

	private static final String DOCUMENTED = "ACL SETUSER lockstep ";

	private final List<String> rule;

	private RedisAclRule(List<String> rule) {
		this.rule = List.copyOf(rule);
	}

	/** The rule as {@code docs/security.md} gives it, found from the working directory upwards. */
	public static RedisAclRule documented() {
		Path dir = Path.of("").toAbsolutePath();
		while (dir != null && !Files.exists(dir.resolve("docs/security.md"))) {
			dir = dir.getParent();
		}
		if (dir == null) {
			throw new IllegalStateException("docs/security.md not found above " + Path.of("").toAbsolutePath());
		}
		try {
			String line = Files.readAllLines(dir.resolve("docs/security.md"))
				.stream()
				.filter((candidate) -> candidate.startsWith(DOCUMENTED))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("docs/security.md has no line starting '" + DOCUMENTED + "'"));
			return new RedisAclRule(Arrays.asList(line.substring(DOCUMENTED.length()).trim().split("\\s+")));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The rule's parts after the user name, e.g. {@code on}, {@code ~lockstep:*}, {@code +evalsha}. */
	public List<String> parts() {
		return this.rule;
	}

	/** The same rule without {@code part} (a permission such as {@code +lpos} or {@code &lockstep:*}). */
	public RedisAclRule without(String part) {
		if (!this.rule.contains(part)) {
			throw new IllegalArgumentException("The documented rule has no '" + part + "': " + this.rule);
		}
		List<String> fewer = new ArrayList<>(this.rule);
		fewer.remove(part);
		return new RedisAclRule(fewer);
	}

	/**
	 * Creates {@code user} on {@code server} with this rule, for {@code keyPrefix} instead of
	 * {@code lockstep:} and {@code password} instead of the documented placeholder.
	 */
	public void apply(RedisServer server, String user, String password, String keyPrefix) {
		List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", user));
		for (String part : this.rule) {
			if (part.startsWith(">")) {
				command.add(">" + password);
			}
			else if (part.equals("~lockstep:*") || part.equals("&lockstep:*")) {
				command.add(part.charAt(0) + keyPrefix + "*");
			}
			else {
				command.add(part);
			}
		}
		Object reply = server.call(command.toArray(String[]::new));
		if (!"OK".equals(reply)) {
			throw new IllegalStateException(String.join(" ", command) + " answered " + reply);
		}
	}

}
