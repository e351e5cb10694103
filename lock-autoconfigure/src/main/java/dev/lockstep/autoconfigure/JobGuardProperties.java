package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.NamingRules;

/**
 * Settings of {@code @JobGuard}.
 */
public class JobGuardProperties {

	/**
	 * Whether the job guard is enabled.
	 */
	private boolean enabled = true;

	/**
	 * How long a runner that died keeps a job's guard, for jobs that set no lockAtMostFor. A live run
	 * renews its guard.
	 */
	private Duration lockAtMostFor = Duration.ofMinutes(10);

	/**
	 * The least time a run keeps its guard after it starts, for jobs that set no lockAtLeastFor.
	 */
	private Duration lockAtLeastFor = Duration.ZERO;

	/**
	 * Whether every @Scheduled method is guarded, also without @JobGuard (named SimpleClassName.methodName).
	 */
	private boolean guardAllScheduled = false;

	/**
	 * How long the instance that fires a cron job first waits for the instance chosen to run it (the one
	 * that ran it least recently) before running it itself; also how long a chosen instance that finds the
	 * guard held tries again every 100-250 ms (every second after that). Keep it above the clock skew
	 * between instances.
	 */
	private Duration skewTolerance = Duration.ofSeconds(10);

	/**
	 * How long shutdown waits for running guarded jobs to finish and give up their guards before the Redis
	 * connection closes.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	/**
	 * Id of this instance in run records and skip reasons.
	 */
	private @Nullable String instanceId;

	/**
	 * Scope of job guards: jobs of one name share a guard only within one scope. Defaults to
	 * spring.application.name, so that two services with a job of the same name do not skip each
	 * other's firings; set the same value in services that are meant to share their guards, or an
	 * empty value for one scope across every service on this Redis.
	 */
	private @Nullable String scope;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getLockAtMostFor() {
		return this.lockAtMostFor;
	}

	public void setLockAtMostFor(Duration lockAtMostFor) {
		this.lockAtMostFor = DurationRules.renewedLease("lockstep.job-guard.lock-at-most-for", lockAtMostFor);
	}

	public Duration getLockAtLeastFor() {
		return this.lockAtLeastFor;
	}

	public void setLockAtLeastFor(Duration lockAtLeastFor) {
		this.lockAtLeastFor = DurationRules.notNegative("lockstep.job-guard.lock-at-least-for", lockAtLeastFor);
	}

	public boolean isGuardAllScheduled() {
		return this.guardAllScheduled;
	}

	public void setGuardAllScheduled(boolean guardAllScheduled) {
		this.guardAllScheduled = guardAllScheduled;
	}

	public Duration getSkewTolerance() {
		return this.skewTolerance;
	}

	public void setSkewTolerance(Duration skewTolerance) {
		this.skewTolerance = DurationRules.notNegative("lockstep.job-guard.skew-tolerance", skewTolerance);
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = DurationRules.notNegative("lockstep.job-guard.shutdown-timeout", shutdownTimeout);
	}

	@Deprecated(since = "0.2.0", forRemoval = false)
	@DeprecatedConfigurationProperty(replacement = "lockstep.instance-id",
			reason = "One instance id now names the instance for locks, job guards and serial queues alike", since = "0.2.0")
	public @Nullable String getInstanceId() {
		return this.instanceId;
	}

	public @Nullable String getScope() {
		return this.scope;
	}

	public void setScope(@Nullable String scope) {
		this.scope = (scope != null) ? NamingRules.insideHashTag("lockstep.job-guard.scope", scope) : null;
	}

	/** {@code lockstep.job-guard.instance-id} as set, for {@link LockstepProperties#configuredInstanceId()}. */
	@Nullable String instanceIdAlias() {
		return this.instanceId;
	}

	@Deprecated(since = "0.2.0", forRemoval = false)
	public void setInstanceId(@Nullable String instanceId) {
		this.instanceId = (instanceId != null) ? NamingRules.instanceId("lockstep.job-guard.instance-id", instanceId)
				: null;
	}

}
