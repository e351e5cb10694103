package dev.lockstep.internal.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Every Lockstep Lua script, for a native image: {@link LuaScript} reads them from the class path
 * when a feature starts, and a resource no hint names is left out of the image. One pattern covers
 * the scripts of every module (all under {@code dev/lockstep/}), so a new script needs no new hint.
 * Registered in {@code META-INF/spring/aot.factories}.
 */
class LuaScriptHints implements RuntimeHintsRegistrar {

	static final String PATTERN = "dev/lockstep/**/*.lua";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(PATTERN);
	}

}
