package dev.lockstep.job;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.SchedulingAwareRunnable;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;
import org.springframework.scheduling.support.CronTrigger;

/**
 * Passes every task to the real scheduler and, while a task runs, tells the guard which firing it
 * is: for a trigger, the time the trigger computed for this firing. The task keeps its qualifier,
 * so {@code @Scheduled(scheduler = ...)} routing still works.
 */
final class FiringScheduler implements TaskScheduler {

	private final TaskScheduler delegate;

	FiringScheduler(TaskScheduler delegate) {
		this.delegate = delegate;
	}

	TaskScheduler delegate() {
		return this.delegate;
	}

	@Override
	public Clock getClock() {
		return this.delegate.getClock();
	}

	@Override
	public @Nullable ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
		RecordingTrigger recording = new RecordingTrigger(trigger);
		boolean cron = trigger instanceof CronTrigger;
		return this.delegate.schedule(new FiringTask(task, () -> recording.firing(cron)), recording);
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
		return this.delegate.schedule(new FiringTask(task, () -> new Firing(startTime, false)), startTime);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
		return this.delegate.scheduleAtFixedRate(repeating(task), startTime, period);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
		return this.delegate.scheduleAtFixedRate(repeating(task), period);
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
		return this.delegate.scheduleWithFixedDelay(repeating(task), startTime, delay);
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
		return this.delegate.scheduleWithFixedDelay(repeating(task), delay);
	}

	private FiringTask repeating(Runnable task) {
		return new FiringTask(task, () -> new Firing(this.delegate.getClock().instant(), false));
	}

	/** Remembers the time it computed last: the time of the firing that runs next. */
	private static final class RecordingTrigger implements Trigger {

		private final Trigger trigger;

		private volatile @Nullable Instant last;

		RecordingTrigger(Trigger trigger) {
			this.trigger = trigger;
		}

		@Override
		public @Nullable Instant nextExecution(TriggerContext context) {
			Instant next = this.trigger.nextExecution(context);
			this.last = next;
			return next;
		}

		@Nullable Firing firing(boolean cron) {
			Instant scheduled = this.last;
			return (scheduled != null) ? new Firing(scheduled, cron) : null;
		}

	}

	/** A task that runs with its firing known to the guard. */
	private static final class FiringTask implements SchedulingAwareRunnable {

		private final Runnable task;

		private final Supplier<@Nullable Firing> firing;

		FiringTask(Runnable task, Supplier<@Nullable Firing> firing) {
			this.task = task;
			this.firing = firing;
		}

		@Override
		public void run() {
			Firing.run(this.firing.get(), this.task);
		}

		@Override
		public boolean isLongLived() {
			return (this.task instanceof SchedulingAwareRunnable aware) && aware.isLongLived();
		}

		@Override
		public @Nullable String getQualifier() {
			return (this.task instanceof SchedulingAwareRunnable aware) ? aware.getQualifier() : null;
		}

		@Override
		public String toString() {
			return this.task.toString();
		}

	}

}
