package dev.lockstep.integration;

import java.util.List;
import java.util.Set;

import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import dev.lockstep.testing.ImportRules;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adapter stands on the {@code LockService} API (ARCHITECTURE.md): the API package, the
 * auto-configuration it follows, and of lock-core's internals only {@code PrefixedLocks} and
 * {@code ThreadHolds}; never the lock engine or its scripts.
 */
class AdapterImportRulesTests {

	static final ArchRule ADAPTER = ImportRules.onlyImports("dev.lockstep.integration..",
			List.of("dev.lockstep", "dev.lockstep.autoconfigure.."),
			Set.of("dev.lockstep.internal.PrefixedLocks", "dev.lockstep.internal.ThreadHolds"));

	@Test
	void theAdapterDoesNotTouchTheEngine() {
		ADAPTER.check(ImportRules.mainClasses());
	}

	@Test
	void theRuleSeesAnAdapterClassThatTouchesTheEngine() {
		assertThat(ImportRules.seesViolationIn(ADAPTER, TouchesTheEngine.class)).isTrue();
		assertThat(ImportRules.mainClasses().containPackage("dev.lockstep.integration")).isTrue();
	}

	/** Breaks the rule on purpose. */
	static final class TouchesTheEngine {

		dev.lockstep.lock.RedisLockService imported;

	}

}
