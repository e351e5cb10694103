package dev.lockstep;

import java.util.List;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Lockstep's entries in {@code META-INF/spring/aot.factories}, loaded as Spring's AOT engine loads
 * them, so a test of a hint also fails when its registrar is not registered.
 */
public final class AotFactories {

	private static final String LOCATION = "META-INF/spring/aot.factories";

	private AotFactories() {
	}

	/** Lockstep's factories of {@code type} (Spring's own, on the same class path, left out). */
	public static <T> List<T> lockstep(Class<T> type) {
		return SpringFactoriesLoader.forResourceLocation(LOCATION, AotFactories.class.getClassLoader())
			.load(type)
			.stream()
			.filter((factory) -> factory.getClass().getName().startsWith("dev.lockstep."))
			.toList();
	}

	/** The hints every registered Lockstep registrar contributes. */
	public static RuntimeHints hints() {
		RuntimeHints hints = new RuntimeHints();
		lockstep(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, AotFactories.class.getClassLoader()));
		return hints;
	}

}
