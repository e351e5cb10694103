package dev.lockstep.internal.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

/**
 * One feature's Lua scripts, its script table: each read once from the resources beside an anchor
 * class, after the library files the feature's scripts share, named by its file and remembered so
 * that all of them are preloaded together ({@link RedisScripts#preload}): a script added to the
 * feature is preloaded without anyone listing it again. A feature declares its table in one
 * statement and calls its scripts by file name through {@link FeatureScripts}:
 *
 * <pre class="code">
 * new ScriptSet(JobScripts.class, RedisScripts.LOCK_VALUES)
 *     .returning(ScriptOutputType.MULTI, "job-claim.lua", "job-renew.lua")
 *     .returning(ScriptOutputType.INTEGER, "job-finish.lua");
 * </pre>
 */
public final class ScriptSet {

	private final Class<?> anchor;

	private final List<String> library;

	private final List<LuaScript> scripts = new ArrayList<>();

	/**
	 * @param anchor the class whose package holds the scripts
	 * @param library resource names prepended to every script of the set, in order
	 */
	public ScriptSet(Class<?> anchor, String... library) {
		this.anchor = anchor;
		this.library = List.of(library);
	}

	/** Reads {@code name} (after the library files) and adds it to the set. */
	public synchronized LuaScript load(ScriptOutputType output, String name) {
		List<String> resources = new ArrayList<>(this.library);
		resources.add(name);
		LuaScript script = LuaScript.load(this.anchor, output, resources.toArray(String[]::new));
		this.scripts.add(script);
		return script;
	}

	/** Reads each of {@code names}, whose replies are of type {@code output}, and adds them to the set. */
	public ScriptSet returning(ScriptOutputType output, String... names) {
		for (String name : names) {
			load(output, name);
		}
		return this;
	}

	/** Every script of the set, in the order they were loaded. */
	public synchronized List<LuaScript> all() {
		return List.copyOf(this.scripts);
	}

	/** Loads every script of the set into Redis through {@code redis}, waiting up to {@code wait}. */
	public void preload(RedisScripts redis, Duration wait) {
		redis.preload(all(), wait);
	}

	/** A bulk string of a script's reply as text (Lettuce hands them over as bytes); "null" for nil. */
	public static String text(@Nullable Object part) {
		return (part instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(part);
	}

}
