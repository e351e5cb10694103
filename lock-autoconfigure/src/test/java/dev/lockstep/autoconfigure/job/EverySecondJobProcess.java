package dev.lockstep.autoconfigure.job;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import dev.lockstep.JobFiring;
import dev.lockstep.annotation.JobGuard;

/**
 * An application instance in a JVM of its own whose scheduler clock is skewed: a cron job every
 * second whose runs last 200 ms, with the job guard's defaults (skew-tolerance 10s). Prints
 * {@code START <instance> <slot ms> <attempt>} when a run starts and {@code END <instance> <slot ms>}
 * when it ends, and {@code STARTED <instance>} once the application is up.
 * Arguments: Redis host, port, key prefix, instance id, skew in milliseconds.
 */
final class EverySecondJobProcess {

	private EverySecondJobProcess() {
	}

	public static void main(String[] args) throws Exception {
		new JobApps.Process(args[0], Integer.parseInt(args[1]), args[2]).start(args[3],
				Duration.ofMillis(Long.parseLong(args[4])), EverySecond.class);
		System.out.println("STARTED " + args[3]);
		Thread.currentThread().join();
	}

	@Configuration(proxyBeanMethods = false)
	static class EverySecond {

		@Value("${lockstep.job-guard.instance-id}")
		String instance;

		@Scheduled(cron = "* * * * * *")
		@JobGuard
		public void work() throws InterruptedException {
			JobFiring firing = JobFiring.current().orElseThrow();
			long slot = firing.slot().toEpochMilli();
			System.out.println("START " + this.instance + " " + slot + " " + firing.attempt());
			Thread.sleep(200);
			System.out.println("END " + this.instance + " " + slot);
		}

	}

}
