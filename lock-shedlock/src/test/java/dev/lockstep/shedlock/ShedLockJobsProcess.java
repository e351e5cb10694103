package dev.lockstep.shedlock;

import java.time.Duration;

import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.testing.EventLog;

/**
 * An application instance in a JVM of its own, as a ShedLock user has it: {@code @EnableScheduling},
 * {@code @EnableSchedulerLock} and {@code @SchedulerLock} jobs, with lockstep-shedlock on the class
 * path and no {@code LockProvider} bean of its own (the auto-configured {@link LockstepLockProvider}
 * takes the locks). Every run is recorded in an {@link EventLog} on Redis's clock; the jobs that
 * start with {@code take} run only while the test has given them a budget. Prints
 * {@code STARTED <instance> <LockProvider class>} once up.
 * Arguments: Redis host, port, key prefix, instance id.
 */
final class ShedLockJobsProcess {

	static EventLog log;

	private ShedLockJobsProcess() {
	}

	public static void main(String[] args) throws Exception {
		log = EventLog.open(args[0], Integer.parseInt(args[1]), args[2] + "events");
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.main.banner-mode=off", "spring.data.redis.host=" + args[0],
					"spring.data.redis.port=" + args[1], "lockstep.key-prefix=" + args[2],
					"lockstep.instance-id=" + args[3], "spring.task.scheduling.pool.size=8",
					"lockstep.lock.shutdown-timeout=0s")
			.run();
		System.out.println("STARTED " + args[3] + " " + context.getBean(LockProvider.class).getClass().getSimpleName());
		Thread.currentThread().join();
	}

	/** Only the auto-configurations this needs, for a quick start: Redis, Lockstep, the provider's, scheduling. */
	@SpringBootConfiguration
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
			LockstepShedLockAutoConfiguration.class, TaskSchedulingAutoConfiguration.class, AopAutoConfiguration.class })
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
	@Import(Jobs.class)
	static class Application {

	}

	static class Jobs {

		/** lockAtMostFor of {@link #late()}. */
		static final Duration LATE_AT_MOST_FOR = Duration.ofMillis(1200);

		/** How long the first two runs of {@link #late()} last: longer than its lockAtMostFor. */
		static final Duration LATE_RUN = Duration.ofMillis(1700);

		/** lockAtMostFor of {@link #extended()}, and what each extension sets. */
		static final Duration EXTEND_AT_MOST_FOR = Duration.ofSeconds(1);

		/** lockAtLeastFor of {@link #atLeast()}. */
		static final Duration AT_LEAST_FOR = Duration.ofSeconds(1);

		@Value("${lockstep.instance-id}")
		private String instance;

		/** Every second on every instance: {@code tick <slot second> <instance>}. */
		@Scheduled(cron = "* * * * * *")
		@SchedulerLock(name = "tick", lockAtMostFor = "PT5S", lockAtLeastFor = "PT0.8S")
		public void tick() {
			log.append("tick", slot(), this.instance);
			pause(100);
		}

		/** The control: the same job without the lock. */
		@Scheduled(cron = "* * * * * *")
		public void unlockedTick() {
			log.append("free", slot(), this.instance);
			pause(100);
		}

		/** Tried every 50ms on every instance, a 100ms run kept locked for 1s after it started. */
		@Scheduled(fixedDelay = 50)
		@SchedulerLock(name = "atleast", lockAtMostFor = "PT30S", lockAtLeastFor = "PT1S")
		public void atLeast() {
			log.append("atleast", this.instance);
			pause(100);
		}

		/** Runs of 1.5s under a 1s lockAtMostFor, extended by a second every 300ms. */
		@Scheduled(fixedDelay = 50)
		@SchedulerLock(name = "extend", lockAtMostFor = "PT1S")
		public void extended() {
			if (log.take("extend") < 0) {
				return;
			}
			log.append("extend-start", this.instance);
			for (int i = 0; i < 5; i++) {
				pause(300);
				LockExtender.extendActiveLock(EXTEND_AT_MOST_FOR, Duration.ZERO);
			}
			log.append("extend-end", this.instance);
		}

		/**
		 * Runs that outlive their 1.2s lockAtMostFor: the runs with budget 3 and 2 left last 1.7s,
		 * the one with 1 left until the test kills its JVM, the one with 0 left 100ms.
		 */
		@Scheduled(fixedDelay = 50)
		@SchedulerLock(name = "late", lockAtMostFor = "PT1.2S")
		public void late() {
			long left = log.take("late");
			if (left < 0) {
				return;
			}
			log.append("late-start", this.instance, Long.toString(left));
			pause((left == 1) ? 60_000 : (left == 0) ? 100 : LATE_RUN.toMillis());
			log.append("late-end", this.instance, Long.toString(left));
		}

		/** The second of the firing: firings are late by up to 900ms, or early by up to 100ms. */
		private static String slot() {
			return Long.toString((System.currentTimeMillis() + 100) / 1000);
		}

		private static void pause(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
