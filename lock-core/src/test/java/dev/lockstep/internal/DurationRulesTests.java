package dev.lockstep.internal;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.job.GuardedJobs;
import dev.lockstep.job.RedisJobGuard;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.queue.QueueSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The services apply the one set of duration rules, in the same words as the properties and the
 * annotations: the thing at fault, the rule, the value. Nothing here connects to Redis; the
 * setters refuse before anything starts.
 */
class DurationRulesTests {

	private final LettuceConnectionFactory unconnected = new LettuceConnectionFactory();

	@Test
	void eachRuleNamesTheThingTheRuleAndTheValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> DurationRules.renewedLease("lease", Duration.ofMillis(999)))
			.withMessage("lease must be at least 1s, was 999ms");
		assertThatIllegalArgumentException().isThrownBy(() -> DurationRules.notNegative("wait", Duration.ofSeconds(-2)))
			.withMessage("wait must not be negative, was -2s");
		assertThatIllegalArgumentException().isThrownBy(() -> DurationRules.positive("timeout", Duration.ZERO))
			.withMessage("timeout must be at least 1ms, was 0s");
		assertThatIllegalArgumentException().isThrownBy(() -> DurationRules.notNegative("wait", null))
			.withMessage("wait must not be negative, was null");
		assertThat(DurationRules.renewedLease("lease", Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
		assertThat(DurationRules.notNegative("wait", Duration.ZERO)).isZero();
		assertThat(DurationRules.positive("timeout", Duration.ofMillis(1))).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void theLockServiceTheJobGuardAndTheQueueRefuseInTheSameWords() {
		RedisLockService locks = new RedisLockService(this.unconnected);
		assertThatIllegalArgumentException().isThrownBy(() -> locks.setLeaseTime(Duration.ofMillis(500)))
			.withMessage("Lease time must be at least 1s, was 500ms");
		assertThatIllegalArgumentException().isThrownBy(() -> locks.setShutdownTimeout(Duration.ofSeconds(-1)))
			.withMessage("Shutdown timeout must not be negative, was -1s");
		assertThatIllegalArgumentException().isThrownBy(() -> locks.setHeartbeatInterval(Duration.ofMillis(5)))
			.withMessage("Heartbeat interval must be at least 10ms, was 5ms");

		RedisJobGuard jobs = new RedisJobGuard(this.unconnected, new GuardedJobs());
		assertThatIllegalArgumentException().isThrownBy(() -> jobs.setShutdownTimeout(Duration.ofSeconds(-1)))
			.withMessage("Shutdown timeout must not be negative, was -1s");
		assertThatIllegalArgumentException().isThrownBy(() -> jobs.setSkewTolerance(Duration.ofMillis(-10)))
			.withMessage("Skew tolerance must not be negative, was -10ms");
		assertThatIllegalArgumentException().isThrownBy(() -> jobs.setCommandTimeout(Duration.ZERO))
			.withMessage("Command timeout must be at least 1ms, was 0s");

		assertThatIllegalArgumentException()
			.isThrownBy(() -> new QueueSettings(Duration.ofMillis(500), 3, Duration.ZERO, Duration.ofMinutes(1)))
			.withMessage("Lease time must be at least 1s, was 500ms");
	}

}
