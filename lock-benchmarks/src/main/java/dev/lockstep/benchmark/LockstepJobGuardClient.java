package dev.lockstep.benchmark;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobRun;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration;
import dev.lockstep.job.FiringTrackingConfigurer;

/**
 * Lockstep's job guard as an application gets it: a Spring Boot context with Lockstep's
 * auto-configuration on {@code spring.data.redis}, and the {@link GuardedEmptyJob} bean called
 * through its proxy. Fires either by calling the method directly, which is also the path of
 * fixed-rate and fixed-delay firings (no cron slot: the guard is a lease), or as cron firings
 * with a slot each ({@link CronFirings}).
 */
final class LockstepJobGuardClient implements GuardedJobClient {

	private final ConfigurableApplicationContext context;

	private final GuardedEmptyJob job;

	private final boolean cron;

	private final Runnable firing;

	/** @param keyPrefix {@code lockstep.key-prefix}, so that no run meets another's records */
	LockstepJobGuardClient(BenchmarkRedis redis, String keyPrefix, boolean cron) {
		this.context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"lockstep.key-prefix=" + keyPrefix)
			.run();
		this.job = this.context.getBean(GuardedEmptyJob.class);
		this.cron = cron;
		this.firing = cron ? CronFirings.of(this.context.getBean(FiringTrackingConfigurer.class), this.job::run)::fire
				: this.job::run;
	}

	@Override
	public void fire() {
		this.firing.run();
	}

	@Override
	public long runs() {
		return this.job.runs();
	}

	/** The guard's record of the last run says whether it saw a cron slot. */
	@Override
	public void checkFirings() {
		JobRun last = this.context.getBean(JobGuardRegistry.class)
			.lastRun(GuardedEmptyJob.NAME)
			.orElseThrow(() -> new IllegalStateException("The job guard recorded no run"));
		if ((last.scheduledTime() != null) != this.cron) {
			throw new IllegalStateException("The job guard recorded " + ((last.scheduledTime() != null)
					? "a cron slot for a direct call" : "no cron slot for a cron firing") + ": " + last);
		}
	}

	@Override
	public void close() {
		this.context.close();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
			JobGuardAutoConfiguration.class })
	static class Application {

		@Bean
		GuardedEmptyJob guardedEmptyJob() {
			return new GuardedEmptyJob();
		}

	}

}
