package dev.lockstep.autoconfigure.job;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.metrics.LockstepMetricsAutoConfiguration;
import dev.lockstep.testing.TestRedis;

/**
 * Application instances for job guard tests: each a Spring Boot context of its own with its own
 * lock service, job guard and scheduler, all sharing one Redis and one key prefix, as instances
 * of one service would.
 */
final class JobApps implements AutoCloseable {

	private final String host;

	private final int port;

	private final String prefix;

	private final List<ConfigurableApplicationContext> running = new ArrayList<>();

	JobApps() {
		this(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"j" + UUID.randomUUID().toString().substring(0, 8) + ":");
	}

	/** Instances on a Redis server of the test's own (one it may stop and restart). */
	static JobApps on(String host, int port) {
		return new JobApps(host, port, "j" + UUID.randomUUID().toString().substring(0, 8) + ":");
	}

	private JobApps(String host, int port, String prefix) {
		this.host = host;
		this.port = port;
		this.prefix = prefix;
	}

	String prefix() {
		return this.prefix;
	}

	/** Starts an instance whose scheduler clock runs {@code skew} ahead of the real one. */
	ConfigurableApplicationContext start(String instanceId, Duration skew, Class<?> jobs, String... properties) {
		List<String> all = new ArrayList<>(List.of("spring.data.redis.host=" + this.host,
				"spring.data.redis.port=" + this.port, "lockstep.key-prefix=" + this.prefix,
				"lockstep.job-guard.instance-id=" + instanceId, "test.skew-millis=" + skew.toMillis()));
		all.addAll(List.of(properties));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Infrastructure.class, jobs)
			.web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties(all.toArray(String[]::new))
			.run();
		this.running.add(context);
		return context;
	}

	@Override
	public void close() {
		this.running.forEach(ConfigurableApplicationContext::close);
		this.running.clear();
	}

	/** Instances started in a child JVM, on the test's Redis and key prefix. */
	static final class Process {

		private final JobApps apps;

		Process(String host, int port, String prefix) {
			this.apps = new JobApps(host, port, prefix);
		}

		ConfigurableApplicationContext start(String instanceId, Duration skew, Class<?> jobs, String... properties) {
			return this.apps.start(instanceId, skew, jobs, properties);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
			JobGuardAutoConfiguration.class, LockstepMetricsAutoConfiguration.class, TaskSchedulingAutoConfiguration.class,
			AopAutoConfiguration.class })
	static class Infrastructure {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		/** A scheduler whose clock is off by test.skew-millis, as a badly synchronised host's would be. */
		@Bean
		ThreadPoolTaskScheduler taskScheduler(org.springframework.core.env.Environment environment) {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setPoolSize(2);
			scheduler.setThreadNamePrefix("job-" + environment.getProperty("lockstep.job-guard.instance-id") + "-");
			long skew = environment.getProperty("test.skew-millis", Long.class, 0L);
			scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), Duration.ofMillis(skew)));
			// like Spring Boot's default scheduler: shutdown neither waits for running tasks nor awaits them
			scheduler.setWaitForTasksToCompleteOnShutdown(false);
			scheduler.setAwaitTerminationSeconds(0);
			return scheduler;
		}

	}

}
