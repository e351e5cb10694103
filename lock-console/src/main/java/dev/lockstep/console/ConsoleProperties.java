package dev.lockstep.console;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The Lockstep console's settings ({@code lockstep.console.*}).
 */
@ConfigurationProperties("lockstep.console")
public class ConsoleProperties {

	/**
	 * Whether this instance serves the console. Every instance with the console on its class path
	 * writes its heartbeat record (so that the console of any instance lists it) whether it serves
	 * the console or not.
	 */
	private boolean enabled;

	/** The path the console is served under. */
	private String path = "/lockstep";

	/**
	 * Whether the console's actions (redrive, discard, pause, resume, trigger, release) are allowed
	 * in an application without Spring Security. With Spring Security, the operator role is what
	 * allows them, and this setting is not read.
	 */
	private boolean actionsEnabled;

	/** The role (without the {@code ROLE_} prefix) that may view the console, with Spring Security. */
	private String viewerRole = "LOCKSTEP_VIEWER";

	/** The role (without the {@code ROLE_} prefix) that may view the console and act, with Spring Security. */
	private String operatorRole = "LOCKSTEP_OPERATOR";

	/**
	 * How often each instance writes its heartbeat record, adds its counts to the console's history
	 * and looks for "run now" requests of the jobs it guards; an instance is dead for the console
	 * once three intervals pass without one.
	 */
	private Duration heartbeatInterval = Duration.ofSeconds(5);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		if (!path.startsWith("/") || path.endsWith("/") || path.contains("*") || path.contains("{")) {
			throw new IllegalArgumentException("lockstep.console.path must start with '/', not end with '/' and hold no "
					+ "pattern characters, was '" + path + "'");
		}
		this.path = path;
	}

	public boolean isActionsEnabled() {
		return this.actionsEnabled;
	}

	public void setActionsEnabled(boolean actionsEnabled) {
		this.actionsEnabled = actionsEnabled;
	}

	public String getViewerRole() {
		return this.viewerRole;
	}

	public void setViewerRole(String viewerRole) {
		this.viewerRole = role("viewer-role", viewerRole);
	}

	public String getOperatorRole() {
		return this.operatorRole;
	}

	public void setOperatorRole(String operatorRole) {
		this.operatorRole = role("operator-role", operatorRole);
	}

	public Duration getHeartbeatInterval() {
		return this.heartbeatInterval;
	}

	public void setHeartbeatInterval(Duration heartbeatInterval) {
		if (heartbeatInterval.compareTo(Duration.ofMillis(100)) < 0) {
			throw new IllegalArgumentException("lockstep.console.heartbeat-interval must be at least 100ms, was "
					+ heartbeatInterval);
		}
		this.heartbeatInterval = heartbeatInterval;
	}

	private static String role(String property, String role) {
		if (role.isBlank() || role.startsWith("ROLE_")) {
			throw new IllegalArgumentException("lockstep.console." + property + " must be a role name without the "
					+ "ROLE_ prefix, was '" + role + "'");
		}
		return role;
	}

}
