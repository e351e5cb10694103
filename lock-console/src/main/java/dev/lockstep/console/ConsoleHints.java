package dev.lockstep.console;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The console in a native image: the page's files, which {@link ConsoleController} reads from the
 * class path, and the records its API writes as JSON (the cluster view and what it holds, an
 * action's result, the answer while Redis is unreachable), which Jackson writes reflectively;
 * {@code cluster()} answers {@code ResponseEntity<?>}, so Spring cannot tell their types itself.
 * The heartbeat's Lua script is lock-core's hint's ({@code dev/lockstep/**}{@code /*.lua}).
 * Imported by {@link ConsoleAutoConfiguration}.
 */
class ConsoleHints implements RuntimeHintsRegistrar {

	static final String ASSETS = "dev/lockstep/console/static/*";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(ASSETS);
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), ClusterView.Cluster.class,
				ConsoleActions.Result.class, ConsoleController.Unreachable.class);
	}

}
