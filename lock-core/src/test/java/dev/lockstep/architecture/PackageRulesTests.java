package dev.lockstep.architecture;

import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.lockstep.testing.ImportRules;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ARCHITECTURE.md's "May import" column of lock-core's packages, as rules over the compiled main
 * classes. Each rule is also run against a class written to break it, and must see it.
 */
class PackageRulesTests {

	private static final JavaClasses MAIN = ImportRules.mainClasses();

	static Stream<ArchRule> rules() {
		return PackageRules.all().stream();
	}

	@ParameterizedTest
	@MethodSource("rules")
	void lockCoreKeepsTheRule(ArchRule rule) {
		rule.check(MAIN);
	}

	@Test
	void theMainClassesWereFound() {
		// a rule over no classes passes whatever it says
		assertThat(MAIN.containPackage("dev.lockstep.lock")).isTrue();
		assertThat(MAIN.containPackage("dev.lockstep.annotation")).isTrue();
		assertThat(MAIN.containPackage("dev.lockstep.internal.redis")).isTrue();
		assertThat(MAIN.size()).isGreaterThan(100);
	}

	static Stream<Arguments> violations() {
		return Stream.of(
				Arguments.of(PackageRules.ANNOTATION, "dev.lockstep.annotation.ImportsTheLockEngine"),
				Arguments.of(PackageRules.LOCK, "dev.lockstep.lock.ImportsTheJobGuard"),
				Arguments.of(PackageRules.INTERNAL_PACKAGE, "dev.lockstep.internal.ImportsAFeature"),
				Arguments.of(PackageRules.INTERNAL_REDIS, "dev.lockstep.internal.redis.ImportsTheApi"),
				Arguments.of(PackageRules.API_PACKAGE, "dev.lockstep.ImportsTheQueue"));
	}

	@ParameterizedTest
	@MethodSource("violations")
	void aRuleSeesAClassThatBreaksIt(ArchRule rule, String breaking) throws ClassNotFoundException {
		// by name: each class that breaks a rule is package-private in the package it breaks the rule of
		assertThat(ImportRules.seesViolationIn(rule, Class.forName(breaking)))
			.as("%s against %s", rule.getDescription(), breaking)
			.isTrue();
	}

}
