package dev.lockstep.autoconfigure.actuate;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@code lockstep} health contributor: DOWN when Redis cannot run a Lua script (Lockstep's
 * every operation is one); UP otherwise, with the locks this instance lost recently and the
 * renewals that came late as details. Neither makes the application DOWN: they say something
 * happened, not that it is broken.
 */
public final class LockstepHealthIndicator extends AbstractHealthIndicator {

	private static final byte[] PROBE = "return 1".getBytes(StandardCharsets.UTF_8);

	private final RedisConnectionFactory connectionFactory;

	private final String instanceId;

	private final @Nullable String jobGuardInstanceId;

	private final RecentLockLosses losses;

	public LockstepHealthIndicator(RedisConnectionFactory connectionFactory, String instanceId,
			@Nullable String jobGuardInstanceId, RecentLockLosses losses) {
		super("Lockstep cannot run its scripts on Redis");
		this.connectionFactory = connectionFactory;
		this.instanceId = instanceId;
		this.jobGuardInstanceId = jobGuardInstanceId;
		this.losses = losses;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long reply = connection.scriptingCommands().eval(PROBE, ReturnType.INTEGER, 0);
			if (reply == null || reply != 1L) {
				builder.down().withDetail("script", "unexpected reply " + reply);
				return;
			}
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

}
