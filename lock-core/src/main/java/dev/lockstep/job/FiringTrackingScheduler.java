package dev.lockstep.job;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
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
final class FiringTrackingScheduler implements TaskScheduler {

	private final TaskScheduler delegate;

	FiringTrackingScheduler(TaskScheduler delegate) {
		this.delegate = delegate;
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
		return this.delegate.schedule(new FiringTask(task, () -> new TriggerFiring(startTime, false)), startTime);
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
		return new FiringTask(task, () -> new TriggerFiring(this.delegate.getClock().instant(), false));
	}

	/**
	 * Remembers the times it computed, oldest first: each run takes the oldest, which is its own
	 * whether the scheduler computes the next time after a run (a rescheduling scheduler) or as the
	 * run starts on another thread (an asynchronous one).
	 */
	private static final class RecordingTrigger implements Trigger {

		private static final int KEPT = 16;

		private final Trigger trigger;

		private final Deque<Instant> computed = new ArrayDeque<>();

		RecordingTrigger(Trigger trigger) {
			this.trigger = trigger;
		}

		@Override
		public @Nullable Instant nextExecution(TriggerContext context) {
			Instant next = this.trigger.nextExecution(context);
			if (next != null) {
				synchronized (this.computed) {
					if (this.computed.size() == KEPT) {
						this.computed.removeFirst();
					}
					this.computed.addLast(next);
				}
			}
			return next;
		}

		@Nullable TriggerFiring firing(boolean cron) {
			Instant scheduled;
			synchronized (this.computed) {
				scheduled = this.computed.pollFirst();
			}
			return (scheduled != null) ? new TriggerFiring(scheduled, cron) : null;
		}

	}

	/** A task that runs with its firing known to the guard. */
	private static final class FiringTask implements SchedulingAwareRunnable {

		private final Runnable task;

		private final Supplier<@Nullable TriggerFiring> firing;

		FiringTask(Runnable task, Supplier<@Nullable TriggerFiring> firing) {
			this.task = task;
			this.firing = firing;
		}

		@Override
		public void run() {
			TriggerFiring.run(this.firing.get(), this.task);
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
