package dev.lockstep.internal;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The rules for the names Lockstep puts into Redis keys and records, in one place for the
 * services and the Spring Boot properties alike: each check names the thing at fault as its
 * caller calls it (a property, or a setter's subject). Internal to Lockstep.
 */
public final class NamingRules {

	/** Where every Lockstep key goes unless configured otherwise. */
	public static final String DEFAULT_KEY_PREFIX = "lockstep:";

	/** The longest queue name, group name or deduplication id, in UTF-8 bytes, as for lock keys. */
	public static final int MAX_NAME_BYTES = 1024;

	private static final Pattern INSTANCE_ID = Pattern.compile("[A-Za-z0-9._-]+");

	private NamingRules() {
	}

	/**
	 * A key prefix is not blank and has no braces: they mark a Redis Cluster hash tag, and
	 * Lockstep's own tag must decide the slot.
	 * @param name what {@code prefix} is, for the message (e.g. {@code lockstep.key-prefix})
	 * @return {@code prefix}
	 */
	public static String keyPrefix(String name, String prefix) {
		if (prefix == null || prefix.isBlank() || hasBraces(prefix)) {
			throw new IllegalArgumentException(name + " must be non-blank and free of '{' and '}' (they mark the "
					+ "cluster hash tag), was '" + prefix + "'");
		}
		return prefix;
	}

	/**
	 * A part of a key inside Lockstep's hash tag (a job guard's scope or name) has no braces.
	 * @param name what {@code part} is, for the message
	 * @return {@code part}
	 */
	public static String insideHashTag(String name, String part) {
		if (hasBraces(part)) {
			throw new IllegalArgumentException(name + " must not contain '{' or '}' (they would change the keys' hash "
					+ "slot), was '" + part + "'");
		}
		return part;
	}

	/**
	 * A queue name has no braces (it goes inside Lockstep's hash tag) and is at most
	 * {@link #MAX_NAME_BYTES} long.
	 * @param name what {@code queue} is, for the message (a property, with the name or its start)
	 * @return {@code queue}
	 */
	public static String queueName(String name, String queue) {
		insideHashTag(name, queue);
		int bytes = queue.getBytes(StandardCharsets.UTF_8).length;
		if (bytes > MAX_NAME_BYTES) {
			throw new IllegalArgumentException(name + " is " + bytes + " bytes long; a queue name is at most "
					+ MAX_NAME_BYTES + " bytes");
		}
		return queue;
	}

	/**
	 * An instance id is letters, digits, '.', '_' and '-', so that it reads unambiguously in owner
	 * ids and records.
	 * @param name what {@code id} is, for the message
	 * @return {@code id}
	 */
	public static String instanceId(String name, String id) {
		if (id == null || !INSTANCE_ID.matcher(id).matches()) {
			throw new IllegalArgumentException(name + " may only use letters, digits, '.', '_' and '-', was '" + id + "'");
		}
		return id;
	}

	/**
	 * A new instance id in the one default format: host name, process id and three random base-36
	 * characters ({@code host-1234-x7k}), so that two processes, or two applications in one process,
	 * never share one.
	 */
	public static String defaultInstanceId() {
		String runtime = ManagementFactory.getRuntimeMXBean().getName();
		int at = runtime.indexOf('@');
		String pid = (at > 0) ? runtime.substring(0, at) : Long.toString(ProcessHandle.current().pid());
		String host = (at > 0) ? runtime.substring(at + 1) : "host";
		String suffix = Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
		return toInstanceId(host + "-" + pid + "-" + suffix);
	}

	/** {@code text} made into an instance id: every other character becomes '-'. */
	public static String toInstanceId(String text) {
		return text.replaceAll("[^A-Za-z0-9._-]", "-");
	}

	private static boolean hasBraces(String text) {
		return text.indexOf('{') >= 0 || text.indexOf('}') >= 0;
	}

}
