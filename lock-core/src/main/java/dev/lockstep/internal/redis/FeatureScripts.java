package dev.lockstep.internal.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A feature's scripts on its connection: the one shape of the lock's, the job guard's, the queue's
 * and the counters' script classes, which add typed arguments and replies. Runs a script of the
 * feature's {@link ScriptSet}s by its file name, and preloads them all together.
 */
public abstract class FeatureScripts {

	private final RedisScripts redis;

	private final List<ScriptSet> sets;

	/** Every script of the sets by file name, read without a lock on each call. */
	private final Map<String, LuaScript> byName;

	/**
	 * @param redis the feature's connection
	 * @param sets the feature's scripts (more than one where groups of them share different library files)
	 */
	protected FeatureScripts(RedisScripts redis, ScriptSet... sets) {
		this.redis = redis;
		this.sets = List.of(sets);
		Map<String, LuaScript> scripts = new HashMap<>();
		for (ScriptSet set : sets) {
			set.all().forEach((script) -> scripts.put(script.name(), script));
		}
		this.byName = Map.copyOf(scripts);
	}

	/** Loads the scripts into Redis ahead of the first call, waiting at most {@code wait}; see {@link RedisScripts#preload}. */
	public void preload(Duration wait) {
		for (ScriptSet set : this.sets) {
			set.preload(this.redis, wait);
		}
	}

	/** Whether the connection is to a Redis Cluster. */
	public final boolean isCluster() {
		return this.redis.isCluster();
	}

	/**
	 * Runs the script read from {@code name}; the future fails with the Redis or connection error as is.
	 * @throws IllegalArgumentException when no set of the feature has such a script
	 */
	protected final <T> CompletableFuture<T> run(String name, List<String> keys, List<String> args) {
		return this.redis.run(script(name), keys, args);
	}

	/**
	 * Runs the script read from {@code name} also while the connection is down, sent once Lettuce
	 * reconnects: for what undoes or releases in the background ({@link RedisScripts#runAfterReconnect}).
	 */
	protected final <T> CompletableFuture<T> runAfterReconnect(String name, List<String> keys, List<String> args) {
		return this.redis.runAfterReconnect(script(name), keys, args);
	}

	private LuaScript script(String name) {
		LuaScript script = this.byName.get(name);
		if (script == null) {
			throw new IllegalArgumentException("No script '" + name + "' among the scripts of " + getClass().getSimpleName()
					+ ": " + this.byName.keySet());
		}
		return script;
	}

}
