package dev.lockstep.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock's own {@code @SchedulerLock} (method proxies, {@code @EnableSchedulerLock}'s default
 * mode) on three application contexts sharing one Redis, each firing the same job every second:
 * with the auto-configured {@link LockstepLockProvider}, no two runs overlap; without the lock, the
 * same detector sees them overlap.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SchedulerLockTests {

	/** Shared by the contexts of one test; each test sets its own. */
	static volatile RunLog log = new RunLog();

	@Test
	void threeInstancesFiringEverySecondNeverRunTheLockedJobTogether() {
		RunLog runs = runInstances(LockedApplication.class, Duration.ofSeconds(10));
		assertThat(runs.overlapsSeen()).isZero();
		assertThat(runs.overlappingPairs()).isEmpty();
		assertThat(runs.runs()).as("about one run a second").hasSizeGreaterThanOrEqualTo(6);
		System.out.println("Locked job: " + runs.runs().size() + " runs, by instance "
				+ runs.runs().stream().collect(Collectors.groupingBy(RunLog.Run::instance, Collectors.counting())));
	}

	@Test
	void withoutTheLockTheSameDetectorSeesOverlappingRuns() {
		RunLog runs = runInstances(UnlockedApplication.class, Duration.ofSeconds(4));
		assertThat(runs.overlapsSeen()).isPositive();
		assertThat(runs.overlappingPairs()).isNotEmpty();
	}

	private static RunLog runInstances(Class<?> application, Duration howLong) {
		RunLog runs = new RunLog();
		log = runs;
		String keyPrefix = "sl" + UUID.randomUUID().toString().substring(0, 8) + ":";
		List<ConfigurableApplicationContext> contexts = new ArrayList<>();
		try {
			for (int i = 1; i <= 3; i++) {
				contexts.add(new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
					.properties("spring.main.banner-mode=off", "spring.data.redis.host=" + TestRedis.standalone().host(),
							"spring.data.redis.port=" + TestRedis.standalone().port(), "lockstep.key-prefix=" + keyPrefix,
							"lockstep.instance-id=instance-" + i)
					.run());
			}
			for (ConfigurableApplicationContext context : contexts) {
				assertThat(context.getBean(LockProvider.class)).isInstanceOf(LockstepLockProvider.class);
			}
			sleep(howLong);
		}
		finally {
			contexts.forEach(ConfigurableApplicationContext::close);
		}
		return runs;
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "PT10S")
	@Import(LockedJob.class)
	static class LockedApplication {

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableScheduling
	@Import(UnlockedJob.class)
	static class UnlockedApplication {

	}

	static class LockedJob {

		@Value("${lockstep.instance-id}")
		private String instance;

		@Scheduled(cron = "* * * * * *")
		@SchedulerLock(name = "report")
		public void report() {
			log.run(this.instance, 600);
		}

	}

	static class UnlockedJob {

		@Value("${lockstep.instance-id}")
		private String instance;

		@Scheduled(cron = "* * * * * *")
		public void report() {
			log.run(this.instance, 600);
		}

	}

}
