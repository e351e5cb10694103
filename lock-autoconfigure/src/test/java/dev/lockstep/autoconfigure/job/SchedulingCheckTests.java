package dev.lockstep.autoconfigure.job;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.lockstep.annotation.JobGuard;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/** A guarded job in an application without scheduling enabled never fires: startup says so, naming it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class SchedulingCheckTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				JobGuardAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port());

	@Test
	void withoutEnableSchedulingStartupWarnsNamingTheGuardedJobs(CapturedOutput output) {
		this.runner.withUserConfiguration(Unscheduled.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("scheduling is not enabled")
				.contains("push-report (SchedulingCheckTests.PushJob.run())")
				.contains("@EnableScheduling");
		});
	}

	@Test
	void withEnableSchedulingNothingIsSaid(CapturedOutput output) {
		this.runner.withUserConfiguration(Scheduling.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("scheduling is not enabled");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Unscheduled {

		@Bean
		PushJob pushJob() {
			return new PushJob();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

		@Bean
		PushJob pushJob() {
			return new PushJob();
		}

	}

	static class PushJob {

		@Scheduled(cron = "0 0 3 * * *")
		@JobGuard(name = "push-report")
		public void run() {
		}

	}

}
