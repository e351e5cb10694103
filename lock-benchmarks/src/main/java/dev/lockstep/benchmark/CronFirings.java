package dev.lockstep.benchmark;

import java.time.Instant;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.scheduling.support.SimpleTriggerContext;

import dev.lockstep.job.FiringTrackingConfigurer;

/**
 * Cron firings without the waiting. The application's {@link FiringTrackingConfigurer} wraps this
 * scheduler the way it wraps the real one under {@code @EnableScheduling}; the task and trigger
 * this scheduler is then given are kept, and each {@link #fire()} does what the real scheduler
 * does at a firing: asks the trigger for the next time and runs the task, on the calling thread
 * and at once. So every firing reaches the job guard with a cron slot of its own, one second
 * after the previous one. It is never initialized: only cron firings are simulated, and every
 * other way of scheduling fails as an uninitialized {@link ThreadPoolTaskScheduler} does.
 */
final class CronFirings extends ThreadPoolTaskScheduler {

	/** Every second: each firing is the next second's slot. */
	private static final String EVERY_SECOND = "* * * * * *";

	private final SimpleTriggerContext triggerContext = new SimpleTriggerContext();

	private @Nullable Runnable task;

	private @Nullable Trigger trigger;

	/** Schedules {@code task} on a cron trigger through {@code firings}; the firings come from {@link #fire()}. */
	static CronFirings of(FiringTrackingConfigurer firings, Runnable task) {
		CronFirings scheduler = new CronFirings();
		ScheduledTaskRegistrar registrar = new ScheduledTaskRegistrar();
		registrar.setTaskScheduler(scheduler);
		firings.configureTasks(registrar);
		TaskScheduler wrapped = registrar.getScheduler();
		if (wrapped == null || wrapped == scheduler) {
			throw new IllegalStateException("FiringTrackingConfigurer did not wrap the scheduler");
		}
		wrapped.schedule(task, new CronTrigger(EVERY_SECOND));
		if (scheduler.task == null) {
			throw new IllegalStateException("The wrapped scheduler did not pass the task on");
		}
		return scheduler;
	}

	/** The next firing, run now. */
	void fire() {
		Instant next = this.trigger.nextExecution(this.triggerContext);
		this.triggerContext.update(next, next, next);
		this.task.run();
	}

	@Override
	public @Nullable ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
		this.task = task;
		this.trigger = trigger;
		return null;
	}

}
