package dev.lockstep.autoconfigure.security;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.lockstep.Counters;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.LockService;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.QueueStats;
import dev.lockstep.RateLimiter;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialQueueException;
import dev.lockstep.SerialTask;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.JobGuard;
import dev.lockstep.annotation.SerialGroup;
import dev.lockstep.annotation.SerialQueueListener;
import dev.lockstep.autoconfigure.actuate.LockstepHealthIndicator;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.RedisAclRule;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A Spring Boot application whose Redis user has only the ACL rule docs/security.md gives: a
 * lock, a serial group, a queue with retries, dead letters, redrive and discard, a guarded job,
 * counters, a rate limit, the views and the health check all work, and Redis's ACL log shows that
 * nothing was refused on the way. Then users with one permission less: the first call that needs
 * it fails naming what Redis refused.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LeastPrivilegeTests {

	private static final String PREFIX = "app1:";

	private static RedisServer server;

	private ConfigurableApplicationContext context;

	@BeforeAll
	static void startRedis() {
		server = RedisServer.start();
	}

	@AfterAll
	static void stopRedis() {
		server.close();
	}

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
		server.call("ACL", "LOG", "RESET");
		// every test uses one prefix, instance id and queue: what one left (a task its restricted user
		// could not finish) must not run in the next
		server.call("FLUSHALL");
	}

	@Test
	void everyFeatureWorksAsAUserWithOnlyTheDocumentedRule() throws Exception {
		RedisAclRule.documented().apply(server, "orders", "s3cret", PREFIX);
		start("orders");
		Work work = this.context.getBean(Work.class);

		assertThat(work.locked("acct-7")).isEqualTo(1);
		assertThat(work.inGroup("tenant-1")).isEqualTo(1);
		assertThat(((RedisLockService) this.context.getBean(LockService.class)).keyState("Work.locked:acct-7"))
			.isNotNull();

		SerialQueue queue = this.context.getBean(SerialQueue.class);
		String done = queue.submit("imports", "tenant-1", "ok");
		String failing = queue.submit("imports", "tenant-1", "fail");
		await().atMost(Duration.ofSeconds(20)).until(() -> queue.stats("imports").dead() == 1
				&& queue.task("imports", done).map(SerialTask::state).orElse(null) == SerialTask.State.DONE);
		assertThat(queue.deadLetters("imports", 10)).extracting(SerialTask::id).containsExactly(failing);
		assertThat(queue.redrive("imports", failing)).isTrue();
		await().atMost(Duration.ofSeconds(20)).until(() -> work.imports() == 3 && queue.stats("imports").dead() == 1);
		assertThat(queue.discard("imports", failing)).isTrue();
		assertThat(queue.stats("imports")).isEqualTo(new QueueStats(0, 0, 0, 0));

		work.nightly();
		JobGuardRegistry jobs = this.context.getBean(JobGuardRegistry.class);
		assertThat(jobs.lastRun("nightly")).isPresent();
		assertThat(jobs.history("nightly")).hasSize(1);
		assertThat(jobs.members("nightly")).isNotNull();
		assertThat(jobs.elections("nightly")).isNotNull();

		Counters counters = this.context.getBean(Counters.class);
		assertThat(counters.tryIncrement("seats", 2)).isTrue();
		assertThat(counters.tryIncrement("seats", 1, 2, "booking-1")).isTrue();
		assertThat(counters.tryIncrement("seats", 2)).isFalse();
		assertThat(counters.decrement("seats")).isEqualTo(1);
		assertThat(this.context.getBean(RateLimiter.class).tryAcquire("search", 1, Duration.ofMinutes(1)).allowed()).isTrue();

		assertThat(this.context.getBean(LockstepHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		// nothing Lockstep sent was refused on the way, not even a wake-up subscription that would only
		// have cost latency; Lettuce's own CLIENT SETINFO on connecting is refused and ignored by Lettuce
		assertThat((List<?>) server.call("ACL", "LOG")).allSatisfy((entry) -> assertThat(refused(entry)).isEqualTo("client"));
		// and everything Lockstep wrote is under its prefix
		assertThat((List<?>) server.call("KEYS", "*")).isNotEmpty().allMatch((key) -> key.toString().startsWith(PREFIX));
	}

	@Test
	void aUserWithoutEvalshaIsToldEvalshaIsRefusedOnTheFirstLock() {
		RedisAclRule.documented().without("+evalsha").apply(server, "no-evalsha", "s3cret", PREFIX);
		start("no-evalsha");
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> this.context.getBean(Work.class).locked("acct-7"))
			.withMessageContaining("lock 'Work.locked:acct-7'")
			.withMessageContaining("no permissions to run the 'evalsha' command");
	}

	@Test
	void aUserWithoutACommandAScriptRunsIsToldTheScriptAndItsCommands() {
		RedisAclRule.documented().without("+exists").apply(server, "no-exists", "s3cret", PREFIX);
		start("no-exists");
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> this.context.getBean(Work.class).locked("acct-7"))
			.withMessageContaining("lock 'Work.locked:acct-7'")
			.withMessageContaining("the Redis user lacks a permission Lockstep needs: script acquire.lua runs ")
			.withMessageContaining(" EXISTS ");
	}

	@Test
	void aUserWithoutTheWakeUpChannelsIsToldPublishIsRefusedOnTheFirstSubmit() {
		RedisAclRule.documented().without("&lockstep:*").apply(server, "no-channels", "s3cret", PREFIX);
		start("no-channels");
		assertThatExceptionOfType(SerialQueueException.class)
			.isThrownBy(() -> this.context.getBean(SerialQueue.class).submit("imports", "tenant-1", "ok"))
			.withMessageContaining("storing a task for queue 'imports'")
			.withMessageContaining("can't publish to the channel")
			.withMessageContaining("PUBLISH");
	}

	@Test
	void aUserLimitedToAnotherPrefixIsToldItsKeysAreRefused() {
		RedisAclRule.documented().apply(server, "other-prefix", "s3cret", "app2:");
		start("other-prefix");
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> this.context.getBean(Work.class).locked("acct-7"))
			.withMessageContaining("lock 'Work.locked:acct-7'")
			.withMessageContaining("no permissions to access one of the keys");
	}

	/** What an ACL LOG entry (a flat list of names and values) says was refused. */
	private static Object refused(Object entry) {
		List<?> fields = (List<?>) entry;
		return fields.get(fields.indexOf("object") + 1);
	}

	private void start(String user) {
		this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"spring.data.redis.username=" + user, "spring.data.redis.password=s3cret",
					"spring.data.redis.timeout=5s", "lockstep.key-prefix=" + PREFIX,
					"lockstep.queue.queues.imports.max-attempts=1", "lockstep.job-guard.instance-id=node-a",
					"lockstep.queue.shutdown-timeout=0s", "lockstep.lock.shutdown-timeout=0s")
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		Work work() {
			return new Work();
		}

	}

	static class Work {

		private final AtomicInteger imports = new AtomicInteger();

		private final AtomicInteger calls = new AtomicInteger();

		public int imports() {
			return this.imports.get();
		}

		@DistributedLock(key = "#account")
		public int locked(String account) {
			return this.calls.incrementAndGet();
		}

		@SerialGroup(key = "#tenant")
		public int inGroup(String tenant) {
			return 1;
		}

		@SerialQueueListener(queue = "imports")
		public void importOne(String request) {
			this.imports.incrementAndGet();
			if (request.equals("fail")) {
				throw new IllegalStateException("import refused");
			}
		}

		@JobGuard(name = "nightly")
		public void nightly() {
		}

	}

}
