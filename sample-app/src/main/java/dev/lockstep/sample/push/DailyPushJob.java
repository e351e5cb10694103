package dev.lockstep.sample.push;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import dev.lockstep.JobFiring;
import dev.lockstep.annotation.JobGuard;

/**
 * The "daily push" of field report 2: a notification push that must go out once per firing, not
 * once per instance. Its cron is {@code sample.push.cron}; every few seconds in the sample so that
 * firings can be watched, daily in real life.
 */
@Component
class DailyPushJob {

	private static final Logger logger = LoggerFactory.getLogger(DailyPushJob.class);

	private final PushRunLog runs;

	private final String instanceId;

	DailyPushJob(PushRunLog runs, @Value("${sample.instance-id}") String instanceId) {
		this.runs = runs;
		this.instanceId = instanceId;
	}

	/**
	 * Each firing runs on exactly one instance, in turn; the others skip it (see GET /push/guard).
	 * The run records the cron slot it is for, as {@link JobFiring} gives it (the same on every
	 * instance, even when this run is another instance's slot taken over late).
	 */
	@Scheduled(cron = "${sample.push.cron}")
	@JobGuard(name = "daily-push", lockAtMostFor = "1m")
	public void push() {
		Instant startedAt = Instant.now().truncatedTo(ChronoUnit.MICROS);
		// Empty when the guard is switched off (lockstep.job-guard.enabled=false): every instance then runs
		// every firing. The sample's crons fire on whole seconds, so the second it started in names the firing.
		Instant scheduledFor = JobFiring.current()
			.map(JobFiring::slot)
			.orElseGet(() -> startedAt.truncatedTo(ChronoUnit.SECONDS));
		this.runs.record(this.instanceId, scheduledFor, startedAt);
		logger.info("Daily push for the firing of {} ran on {}", scheduledFor, this.instanceId);
	}

}
