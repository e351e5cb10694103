package dev.lockstep.autoconfigure.job;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import dev.lockstep.annotation.JobGuard;

/**
 * An application instance in a JVM of its own, for tests that kill it: a cron job every two
 * seconds whose runs last far longer than its 3s lockAtMostFor (renewed while it lives).
 * Arguments: Redis host, port, key prefix, instance id.
 */
final class GuardedJobProcess {

	private GuardedJobProcess() {
	}

	public static void main(String[] args) throws Exception {
		new JobApps.Process(args[0], Integer.parseInt(args[1]), args[2]).start(args[3], Duration.ZERO, LongJob.class,
				"lockstep.job-guard.skew-tolerance=1s");
		Thread.currentThread().join();
	}

	@Configuration(proxyBeanMethods = false)
	static class LongJob {

		@Value("${lockstep.job-guard.instance-id}")
		String instance;

		@Scheduled(cron = "*/2 * * * * *")
		@JobGuard(lockAtMostFor = "3s")
		public void work() throws InterruptedException {
			System.out.println("RUN " + this.instance + " " + System.currentTimeMillis());
			Thread.sleep(60_000);
		}

	}

}
