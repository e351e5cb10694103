package dev.lockstep.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.lockstep.internal.redis.RedisProbe;

/**
 * The {@code lockstep} health contributor: DOWN when Redis cannot run a Lua script (Lockstep's
 * every operation is one), with the Redis tried and why as details; UP otherwise, with the locks
 * this instance lost recently and the renewals that came late as details. Neither makes the
 * application DOWN: they say something happened, not that it is broken. It answers within
 * {@code lockstep.command-timeout}, and at once while Lettuce knows the connection is down, so
 * that a probe with a short timeout sees DOWN rather than a hang (Lettuce's own timeout is a
 * minute by default).
 */
public final class LockstepHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

	private final RedisProbe probe;

	private final String instanceId;

	private final @Nullable String jobGuardInstanceId;

	private final RecentLockLosses losses;

	/**
	 * @param connectionFactory the application's Redis
	 * @param commandTimeout the longest wait for the probe's reply ({@code lockstep.command-timeout})
	 * @param instanceId this instance's id in lock owners
	 * @param jobGuardInstanceId this instance's id in job runs, or null without a job guard
	 * @param losses the locks lost and renewals late recently
	 */
	public LockstepHealthIndicator(RedisConnectionFactory connectionFactory, Duration commandTimeout, String instanceId,
			@Nullable String jobGuardInstanceId, RecentLockLosses losses) {
		super("Lockstep cannot run its scripts on Redis");
		this.probe = new RedisProbe(connectionFactory, commandTimeout);
		this.instanceId = instanceId;
		this.jobGuardInstanceId = jobGuardInstanceId;
		this.losses = losses;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		String failure = this.probe.failure();
		if (failure != null) {
			builder.down().withDetail("redis", this.probe.redis()).withDetail("error", failure);
			return;
		}
		List<RecentLockLosses.Loss> recent = this.losses.losses();
		builder.up()
			.withDetail("instance", this.instanceId)
			.withDetail("locksLost", recent.size())
			.withDetail("locksLostWindow", this.losses.window().toString());
		if (this.jobGuardInstanceId != null) {
			builder.withDetail("jobGuardInstance", this.jobGuardInstanceId);
		}
		if (!recent.isEmpty()) {
			builder.withDetail("lastLockLost", recent.get(0));
		}
		List<RecentLockLosses.LateRenewal> late = this.losses.lateRenewals();
		builder.withDetail("renewalsLate", late.size());
		if (!late.isEmpty()) {
			builder.withDetail("lastRenewalLate", late.get(0));
		}
	}

	@Override
	public void destroy() {
		this.probe.close();
	}

}
