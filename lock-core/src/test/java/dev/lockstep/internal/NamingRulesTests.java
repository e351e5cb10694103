package dev.lockstep.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class NamingRulesTests {

	@Test
	void keyPrefixesAreNonBlankAndFreeOfBracesAndTheMessageNamesTheSetting() {
		assertThat(NamingRules.keyPrefix("lockstep.key-prefix", "orders:")).isEqualTo("orders:");
		for (String bad : new String[] { "", " ", "a{b", "x}", null }) {
			assertThatIllegalArgumentException().isThrownBy(() -> NamingRules.keyPrefix("lockstep.key-prefix", bad))
				.withMessageStartingWith("lockstep.key-prefix must be non-blank and free of '{' and '}'")
				.withMessageEndingWith("was '" + bad + "'");
		}
	}

	@Test
	void partsInsideTheHashTagHaveNoBraces() {
		assertThat(NamingRules.insideHashTag("lockstep.job-guard.scope", "billing")).isEqualTo("billing");
		assertThatIllegalArgumentException().isThrownBy(() -> NamingRules.insideHashTag("lockstep.job-guard.scope", "b{i}"))
			.withMessageContaining("lockstep.job-guard.scope must not contain '{' or '}'");
	}

	@Test
	void instanceIdsAreLettersDigitsDotsUnderscoresAndDashes() {
		assertThat(NamingRules.instanceId("lockstep.job-guard.instance-id", "node-1.eu_west")).isEqualTo("node-1.eu_west");
		assertThatIllegalArgumentException().isThrownBy(() -> NamingRules.instanceId("lockstep.job-guard.instance-id", "host a"))
			.withMessage("lockstep.job-guard.instance-id may only use letters, digits, '.', '_' and '-', was 'host a'");
		assertThat(NamingRules.toInstanceId("host a@b:12")).isEqualTo("host-a-b-12");
		assertThat(NamingRules.instanceId("id", NamingRules.toInstanceId("any thing/at all"))).isEqualTo("any-thing-at-all");
	}

}
