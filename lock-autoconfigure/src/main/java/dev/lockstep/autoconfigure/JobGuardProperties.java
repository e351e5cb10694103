package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.NamingRules;

/**
 * Settings of {@code @JobGuard}.
 *
 * @param enabled Whether the job guard is enabled.
 * @param lockAtMostFor How long a runner that died keeps a job's guard, for jobs that set no
 * lockAtMostFor. A live run renews its guard.
 * @param lockAtLeastFor The least time a run keeps its guard after it starts, for jobs that set no
 * lockAtLeastFor.
 * @param guardAllScheduled Whether every @Scheduled method is guarded, also without @JobGuard (named
 * SimpleClassName.methodName).
 * @param skewTolerance How long the instance that fires a cron job first waits for the instance chosen
 * to run it (the one that ran it least recently) before running it itself; also how long a chosen
 * instance that finds the guard held tries again every 100-250 ms (every second after that). Keep it
 * above the clock skew between instances.
 * @param shutdownTimeout How long shutdown waits for running guarded jobs to finish and give up their
 * guards before the Redis connection closes.
 * @param instanceId Id of this instance in run records and skip reasons.
 * @param scope Scope of job guards: jobs of one name share a guard only within one scope. Defaults to
 * spring.application.name, so that two services with a job of the same name do not skip each other's
 * firings; set the same value in services that are meant to share their guards, or an empty value for
 * one scope across every service on this Redis.
 */
public record JobGuardProperties(@DefaultValue("true") boolean enabled, @DefaultValue("10m") Duration lockAtMostFor,
		@DefaultValue("0") Duration lockAtLeastFor, boolean guardAllScheduled,
		@DefaultValue("10s") Duration skewTolerance, @DefaultValue("30s") Duration shutdownTimeout,
		@Nullable String instanceId, @Nullable String scope) {

	/** Checks each setting, naming its property when one is out of range or malformed. */
	public JobGuardProperties {
		DurationRules.renewedLease("lockstep.job-guard.lock-at-most-for", lockAtMostFor);
		DurationRules.notNegative("lockstep.job-guard.lock-at-least-for", lockAtLeastFor);
		DurationRules.notNegative("lockstep.job-guard.skew-tolerance", skewTolerance);
		DurationRules.notNegative("lockstep.job-guard.shutdown-timeout", shutdownTimeout);
		if (instanceId != null) {
			NamingRules.instanceId("lockstep.job-guard.instance-id", instanceId);
		}
		if (scope != null) {
			NamingRules.insideHashTag("lockstep.job-guard.scope", scope);
		}
	}

	/**
	 * The deprecated name of {@link LockstepProperties#instanceId()}.
	 * @return {@code lockstep.job-guard.instance-id} as set
	 */
	@Override
	@Deprecated(since = "0.2.0", forRemoval = false)
	@DeprecatedConfigurationProperty(replacement = "lockstep.instance-id",
			reason = "One instance id now names the instance for locks, job guards and serial queues alike", since = "0.2.0")
	public @Nullable String instanceId() {
		return this.instanceId;
	}

	/** {@code lockstep.job-guard.instance-id} as set, for {@link LockstepProperties#configuredInstanceId()}. */
	@Nullable String instanceIdAlias() {
		return this.instanceId;
	}

}
