package dev.lockstep.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;

import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration;
import dev.lockstep.autoconfigure.queue.SerialQueueAutoConfiguration;
import dev.lockstep.job.RedisJobGuard;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.queue.RedisSerialQueue;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/** One instance id for locks, job guard and serial queues: {@code lockstep.instance-id}, its old name, its default. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InstanceIdTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				JobGuardAutoConfiguration.class, SerialQueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(),
				"lockstep.key-prefix=i" + UUID.randomUUID().toString().substring(0, 8) + ":");

	@Test
	void lockstepInstanceIdNamesTheInstanceForLocksJobsAndQueues() {
		this.runner.withPropertyValues("lockstep.instance-id=node-7").run((context) -> assertNamed(context, "node-7"));
	}

	@Test
	void theOldJobGuardPropertyStillNamesItForAllThree() {
		this.runner.withPropertyValues("lockstep.job-guard.instance-id=old-1").run((context) -> assertNamed(context, "old-1"));
		// both, agreeing (an application part way through the rename): the one name
		this.runner.withPropertyValues("lockstep.job-guard.instance-id=node-1", "lockstep.instance-id=node-1")
			.run((context) -> assertNamed(context, "node-1"));
	}

	@Test
	void bothPropertiesSetToDifferentValuesStopStartupNamingBothAndTheirValues() {
		this.runner.withPropertyValues("lockstep.job-guard.instance-id=old-1", "lockstep.instance-id=new-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessage("lockstep.instance-id ('new-1') and its deprecated alias lockstep.job-guard.instance-id "
						+ "('old-1') are both set, to different values; set lockstep.instance-id only");
		});
	}

	@Test
	void withoutOneTheThreeShareOneDrawnPerApplicationInOneFormat() {
		this.runner.run((first) -> this.runner.run((second) -> {
			String one = first.getBean(RedisJobGuard.class).instanceId();
			assertNamed(first, one);
			assertThat(one).as("host name, process id, three random characters")
				.matches("[A-Za-z0-9._-]+-" + ProcessHandle.current().pid() + "-[0-9a-z]{1,3}");
			assertThat(second.getBean(RedisJobGuard.class).instanceId()).as("another application's").isNotEqualTo(one);
		}));
	}

	@Test
	void aBadInstanceIdStopsStartupNamingTheProperty() {
		this.runner.withPropertyValues("lockstep.instance-id=node 7").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("lockstep.instance-id")
				.hasStackTraceContaining("'node 7'");
		});
	}

	@Test
	void theMetadataDeprecatesTheOldPropertyInFavourOfTheNewOne() throws Exception {
		String metadata = new ClassPathResource("META-INF/spring-configuration-metadata.json")
			.getContentAsString(StandardCharsets.UTF_8);
		assertThat(metadata).contains("\"name\": \"lockstep.instance-id\"");
		int old = metadata.indexOf("\"name\": \"lockstep.job-guard.instance-id\"");
		assertThat(old).isPositive();
		String entry = metadata.substring(old, metadata.indexOf('}', metadata.indexOf("\"deprecation\"", old)) + 1);
		assertThat(entry).contains("\"deprecated\": true").contains("\"replacement\": \"lockstep.instance-id\"");
	}

	private static void assertNamed(AssertableApplicationContext context, String name) {
		assertThat(context).hasNotFailed();
		assertThat(context.getBean(RedisJobGuard.class).instanceId()).isEqualTo(name);
		assertThat(context.getBean(RedisSerialQueue.class).instanceId()).isEqualTo(name);
		assertThat(context.getBean(RedisLockService.class).getInstanceId()).as("the lock service: the name and its run")
			.matches(java.util.regex.Pattern.quote(name) + "\\.[0-9a-z]{4}");
	}

}
