package dev.lockstep.console;

import java.util.List;
import java.util.Set;

import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import dev.lockstep.testing.ImportRules;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console reads Lockstep through its API only (ARCHITECTURE.md): the API package, the
 * annotations, the auto-configuration it plugs into, and of lock-core's internals only
 * {@code LogText}, for log lines that quote a user's input, and {@code RedisProbe}, the bounded
 * check of Redis the cluster view answers "Redis unreachable" with.
 */
class ConsoleImportRulesTests {

	static final ArchRule CONSOLE = ImportRules.onlyImports("dev.lockstep.console..",
			List.of("dev.lockstep", "dev.lockstep.annotation..", "dev.lockstep.autoconfigure.."),
			Set.of("dev.lockstep.internal.LogText", "dev.lockstep.internal.redis.RedisProbe"));

	@Test
	void theConsoleNamesNoClassOfLockCoreOutsideItsApi() {
		CONSOLE.check(ImportRules.mainClasses());
	}

	@Test
	void theRuleSeesAConsoleClassThatReachesPastTheApi() {
		assertThat(ImportRules.seesViolationIn(CONSOLE, ReachesPastTheApi.class)).isTrue();
		assertThat(ImportRules.mainClasses().containPackage("dev.lockstep.console")).isTrue();
	}

	/** Breaks the rule on purpose. */
	static final class ReachesPastTheApi {

		dev.lockstep.internal.DurationText imported;

	}

}
