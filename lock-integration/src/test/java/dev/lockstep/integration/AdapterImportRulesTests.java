package dev.lockstep.integration;

import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import dev.lockstep.testing.ImportRules;

import static org.assertj.core.api.Assertions.assertThat;

/** This adapter stands on the {@code LockService} API (ARCHITECTURE.md; see {@link ImportRules#adapterImports}). */
class AdapterImportRulesTests {

	static final ArchRule ADAPTER = ImportRules.adapterImports("dev.lockstep.integration..");

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
