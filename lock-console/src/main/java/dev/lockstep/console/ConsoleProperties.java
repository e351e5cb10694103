package dev.lockstep.console;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The Lockstep console's settings ({@code lockstep.console.*}).
 *
 * @param enabled Whether this instance serves the console. Every instance with the console on its class
 * path writes its heartbeat record (so that the console of any instance lists it) whether it serves the
 * console or not.
 * @param path The path the console is served under.
 * @param actionsEnabled Whether the console's actions (redrive, discard, pause, resume, trigger, release)
 * are allowed in an application without Spring Security. With Spring Security, the operator role is
 * what allows them, and this setting is not read.
 * @param viewerRole The role (without the {@code ROLE_} prefix) that may view the console, with Spring
 * Security.
 * @param operatorRole The role (without the {@code ROLE_} prefix) that may view the console and act, with
 * Spring Security.
 * @param heartbeatInterval How often each instance writes its heartbeat record, adds its counts to the
 * console's history and looks for "run now" requests of the jobs it guards; an instance is dead for the
 * console once three intervals pass without one.
 */
@ConfigurationProperties("lockstep.console")
public record ConsoleProperties(boolean enabled, @DefaultValue("/lockstep") String path, boolean actionsEnabled,
		@DefaultValue("LOCKSTEP_VIEWER") String viewerRole, @DefaultValue("LOCKSTEP_OPERATOR") String operatorRole,
		@DefaultValue("5s") Duration heartbeatInterval) {

	/** Checks each setting, naming its property when one is malformed or out of range. */
	public ConsoleProperties {
		if (!path.startsWith("/") || path.endsWith("/") || path.contains("*") || path.contains("{")) {
			throw new IllegalArgumentException("lockstep.console.path must start with '/', not end with '/' and hold no "
					+ "pattern characters, was '" + path + "'");
		}
		checkRole("viewer-role", viewerRole);
		checkRole("operator-role", operatorRole);
		if (heartbeatInterval.compareTo(Duration.ofMillis(100)) < 0) {
			throw new IllegalArgumentException("lockstep.console.heartbeat-interval must be at least 100ms, was "
					+ heartbeatInterval);
		}
	}

	private static void checkRole(String property, String role) {
		if (role.isBlank() || role.startsWith("ROLE_")) {
			throw new IllegalArgumentException("lockstep.console." + property + " must be a role name without the "
					+ "ROLE_ prefix, was '" + role + "'");
		}
	}

}
