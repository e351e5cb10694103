package dev.lockstep.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.ScriptOutputType;

/**
 * A Lua script read once from class-path resources (a shared library file followed by the script
 * itself), with its SHA-1 so it can be sent by digest.
 * @param name the script's resource name, for messages
 * @param source the full source sent to Redis on NOSCRIPT
 * @param sha1 the digest sent with EVALSHA
 * @param output how Lettuce decodes the reply
 */
public record LuaScript(String name, String source, String sha1, ScriptOutputType output) {

	private static final Pattern CALL = Pattern.compile("redis\\.p?call\\('([A-Za-z]+)'");

	/** The Redis commands the script runs, upper case and sorted, for messages about permissions. */
	public Set<String> commands() {
		Set<String> commands = new TreeSet<>();
		Matcher call = CALL.matcher(this.source);
		while (call.find()) {
			commands.add(call.group(1).toUpperCase(java.util.Locale.ROOT));
		}
		return commands;
	}

	/** Loads {@code resources} (relative to {@code anchor}'s package) and joins them in order. */
	public static LuaScript load(Class<?> anchor, ScriptOutputType output, String... resources) {
		StringBuilder source = new StringBuilder();
		for (String resource : resources) {
			source.append(read(anchor, resource)).append('\n');
		}
		String name = resources[resources.length - 1];
		return new LuaScript(name, source.toString(), sha1(source.toString()), output);
	}

	private static String read(Class<?> anchor, String resource) {
		try (InputStream in = anchor.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + resource + " is missing next to " + anchor.getName());
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read Lua script " + resource, ex);
		}
	}

	private static String sha1(String source) {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-1");
			return HexFormat.of().formatHex(digest.digest(source.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is not available", ex);
		}
	}

}
