package dev.lockstep.console;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** {@code lockstep.console.*} as Boot binds it: the defaults, and each bad value failing in its property's name. */
class ConsolePropertiesTests {

	@Test
	void unsetPropertiesTakeTheirDefaults() {
		assertThat(bind(Map.of())).isEqualTo(new ConsoleProperties(false, "/lockstep", false, "LOCKSTEP_VIEWER",
				"LOCKSTEP_OPERATOR", Duration.ofSeconds(5)));
		assertThat(bind(Map.of("lockstep.console.path", "/ops/locks")).path()).isEqualTo("/ops/locks");
	}

	@Test
	void eachBadValueFailsNamingItsPropertyAndTheValue() {
		Map<String, String> bad = Map.of("lockstep.console.path=lockstep", "must start with '/'",
				"lockstep.console.path=/ops/*", "was '/ops/*'", "lockstep.console.viewer-role=ROLE_VIEWER",
				"must be a role name without the ROLE_ prefix, was 'ROLE_VIEWER'", "lockstep.console.operator-role= ",
				"must be a role name without the ROLE_ prefix, was ' '", "lockstep.console.heartbeat-interval=50ms",
				"must be at least 100ms, was PT0.05S");
		bad.forEach((setting, message) -> {
			String property = setting.substring(0, setting.indexOf('='));
			Throwable failure = catchThrowable(() -> bind(Map.of(property, setting.substring(setting.indexOf('=') + 1))));
			assertThat(failure).as(setting).hasStackTraceContaining(property + " ").hasStackTraceContaining(message);
		});
	}

	private static ConsoleProperties bind(Map<String, String> properties) {
		return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("lockstep.console",
				ConsoleProperties.class);
	}

}
