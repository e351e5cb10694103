package dev.lockstep.autoconfigure;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.JobGuard;
import dev.lockstep.annotation.SerialQueueListener;
import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration;
import dev.lockstep.autoconfigure.queue.SerialQueueAutoConfiguration;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad input met at startup through an annotation: the failure names the method and the thing at
 * fault, also where the value at fault is a property's rather than the annotation's own.
 */
class BadAnnotationInputTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
				LockstepAutoConfiguration.class, JobGuardAutoConfiguration.class, SerialQueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(),
				"lockstep.key-prefix=bad" + UUID.randomUUID().toString().substring(0, 8) + ":");

	@Test
	void defaultLockAtLeastForOverDefaultLockAtMostForNamesBothProperties() {
		this.runner.withBean(Plain.class).withPropertyValues("lockstep.job-guard.lock-at-least-for=15m").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Plain.run()")
				.hasMessageContaining("lockAtLeastFor (15m, lockstep.job-guard.lock-at-least-for)")
				.hasMessageContaining("lockAtMostFor (10m, lockstep.job-guard.lock-at-most-for)");
		});
	}

	@Test
	void anAttributeOverTheOtherDefaultNamesTheAttributeAndTheProperty() {
		this.runner.withBean(OwnAtLeast.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("OwnAtLeast.run()")
				.hasMessageContaining("lockAtLeastFor (20m, the attribute)")
				.hasMessageContaining("lockAtMostFor (10m, lockstep.job-guard.lock-at-most-for)");
		});
		// both the job's own: named as attributes, as before
		this.runner.withBean(BothOwn.class).run((context) -> assertThat(context.getStartupFailure()).rootCause()
			.hasMessageContaining("lockAtLeastFor (2m, the attribute)")
			.hasMessageContaining("lockAtMostFor (1m, the attribute)"));
	}

	@Test
	void aListenersQueueNameWithBracesNamesTheMethod() {
		this.runner.withBean(BracedListener.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasMessage("@SerialQueueListener method "
					+ BracedListener.class.getName() + ".handle: Queue name must not contain '{' or '}' (they would "
					+ "change the keys' hash slot), was 'a{b}'");
		});
	}

	@Test
	void aListenersQueueNameOver1024BytesNamesTheMethodAndTheName() {
		this.runner.withBean(PlaceholderListener.class).withPropertyValues("app.queue=" + "q".repeat(1025)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasMessage("@SerialQueueListener method "
					+ PlaceholderListener.class.getName() + ".handle: Queue name '" + "q".repeat(64) + "...' is 1025 bytes "
					+ "long; at most 1024 bytes are allowed");
		});
		// 1024 bytes fit
		this.runner.withBean(PlaceholderListener.class).withPropertyValues("app.queue=" + "q".repeat(1024))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aNameThatResolvesToBlankFailsNamingTheMethodAndTheAttribute() {
		this.runner.withBean(BlankJobName.class).run((context) -> assertThat(context.getStartupFailure()).rootCause()
			.hasMessage("@JobGuard on BadAnnotationInputTests.BlankJobName.run(): name '${app.job-name:}' resolved to a "
					+ "blank name; set a value, or leave the attribute out for the default (SimpleClassName.methodName)"));
		this.runner.withBean(BlankLockName.class).run((context) -> assertThat(context.getStartupFailure()).rootCause()
			.hasMessageStartingWith("@DistributedLock on BadAnnotationInputTests.BlankLockName.work(String): name "
					+ "'${app.lock-name:}' resolved to a blank name"));
		// set, it is the name
		this.runner.withBean(BlankJobName.class).withPropertyValues("app.job-name=nightly")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aScheduledMethodGuardedByThePropertyIsNamedAsSuchNotAsAJobGuard() {
		this.runner.withBean(PrivateTick.class).withPropertyValues("lockstep.job-guard.guard-all-scheduled=true")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageStartingWith("@Scheduled on BadAnnotationInputTests.PrivateTick.tick() (guarded by "
						+ "lockstep.job-guard.guard-all-scheduled) cannot apply: the method is private"));
		// without the property, the guard leaves it alone
		this.runner.withBean(PrivateTick.class).run((context) -> assertThat(context).hasNotFailed());
	}

	static class PrivateTick {

		@Scheduled(fixedDelay = 60_000)
		private void tick() {
		}

	}

	static class BlankJobName {

		@JobGuard(name = "${app.job-name:}")
		public void run() {
		}

	}

	static class BlankLockName {

		@DistributedLock(name = "${app.lock-name:}", key = "#p0")
		public void work(String id) {
		}

	}

	static class Plain {

		@JobGuard
		public void run() {
		}

	}

	static class OwnAtLeast {

		@JobGuard(lockAtLeastFor = "20m")
		public void run() {
		}

	}

	static class BothOwn {

		@JobGuard(lockAtLeastFor = "2m", lockAtMostFor = "1m")
		public void run() {
		}

	}

	static class BracedListener {

		@SerialQueueListener(queue = "a{b}")
		public void handle(String payload) {
		}

	}

	static class PlaceholderListener {

		@SerialQueueListener(queue = "${app.queue}")
		public void handle(String payload) {
		}

	}

}
