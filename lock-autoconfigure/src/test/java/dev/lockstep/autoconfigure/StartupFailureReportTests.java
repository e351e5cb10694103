package dev.lockstep.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A bad setting stops startup the way an operator reads it: Spring Boot's failure report (not a
 * stack trace), naming each property at fault, its value and what to set instead. Each case starts
 * a real application, as {@code SpringApplication.run} does, and reads what it printed.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StartupFailureReportTests {

	@Test
	void aNegativeLeaseIsReportedNamingItsProperty(CapturedOutput output) {
		start("--lockstep.lock.lease-time=-1s");
		assertThat(report(output)).contains("lockstep.lock.lease-time must be at least 1s, was -1s");
	}

	@Test
	void aHeartbeatTooLongForTheLeaseIsReportedNamingBothPropertiesTheirValuesAndTheFix(CapturedOutput output) {
		start("--lockstep.heartbeat-interval=10s", "--lockstep.lock.lease-time=30s");
		assertThat(report(output)).contains("lockstep.heartbeat-interval (10s)", "lockstep.lock.lease-time (30s)",
				"must be under a third of", "set lockstep.heartbeat-interval below 10s or lockstep.lock.lease-time "
						+ "above 30s");
	}

	/** Checked against the connection, not the properties; the nodes are not dialled before it. */
	@Test
	void replicaAcknowledgementsOnAClusterAreReportedNamingThePropertyItsValueAndTheFix(CapturedOutput output) {
		start("--lockstep.lock.replica-acknowledgements=1", "--spring.data.redis.cluster.nodes="
				+ TestRedis.standalone().host() + ":" + TestRedis.standalone().port());
		assertThat(report(output)).contains("lockstep.lock.replica-acknowledgements (1) is not supported on a Redis "
				+ "Cluster", "Set lockstep.lock.replica-acknowledgements to 0");
	}

	private static void start(String... args) {
		SpringApplication application = new SpringApplication(Application.class);
		application.setWebApplicationType(org.springframework.boot.WebApplicationType.NONE);
		Throwable failure = catchThrowable(() -> application.run(concat(args,
				"--spring.data.redis.host=" + TestRedis.standalone().host(),
				"--spring.data.redis.port=" + TestRedis.standalone().port())).close());
		assertThat(failure).as("startup fails").isNotNull();
	}

	/** The part of the output Boot's failure analysis printed; none (a raw stack trace) fails the test. */
	private static String report(CapturedOutput output) {
		String all = output.getAll();
		assertThat(all).as("Boot's failure report, not a raw stack trace").contains("APPLICATION FAILED TO START")
			.doesNotContain("Application run failed");
		return all.substring(all.indexOf("APPLICATION FAILED TO START"));
	}

	private static String[] concat(String[] first, String... more) {
		String[] all = new String[first.length + more.length];
		System.arraycopy(first, 0, all, 0, first.length);
		System.arraycopy(more, 0, all, first.length, more.length);
		return all;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class })
	static class Application {

	}

}
