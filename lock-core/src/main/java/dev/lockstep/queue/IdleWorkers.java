package dev.lockstep.queue;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Where one queue's idle workers wait: for a wake-up (a group's next task may start), for the
 * moment the next lease or retry falls due (one timer per due moment), or at most
 * {@link #IDLE_LOOK}, holding at most one wake-up per worker.
 */
final class IdleWorkers {

	/** Longest wait of an idle worker before it looks for work on its own (a wake-up lost in a reconnect). */
	static final Duration IDLE_LOOK = Duration.ofSeconds(30);

	private final int concurrency;

	private final Semaphore wakeUps = new Semaphore(0);

	private final AtomicLong timedWakeAt = new AtomicLong(Long.MAX_VALUE);

	/** How many timed wake-ups have fired (a lease or retry fell due), so a worker can tell them from wake-up messages. */
	private final AtomicLong timedWakes = new AtomicLong();

	private volatile ScheduledExecutorService timer;

	IdleWorkers(int concurrency) {
		this.concurrency = concurrency;
	}

	/** Starts afresh (the workers start, or start again), timed wake-ups on {@code timer}. */
	void reset(ScheduledExecutorService timer) {
		this.timer = timer;
		this.wakeUps.drainPermits();
		this.timedWakeAt.set(Long.MAX_VALUE);
	}

	/**
	 * A group's next task may start: wakes one idle worker, or the next worker to go idle (a worker
	 * between an empty take and its wait must not miss it).
	 */
	void wake() {
		if (this.wakeUps.availablePermits() < this.concurrency) {
			this.wakeUps.release();
		}
	}

	/** Every worker wakes (the workers stop). */
	void wakeAll() {
		this.wakeUps.release(this.concurrency);
	}

	/** Waits for a wake-up, for {@code dueMillis} (when a lease or retry falls due; -1: none) or {@link #IDLE_LOOK}. */
	void await(long dueMillis) {
		await(dueMillis, IDLE_LOOK.toNanos());
	}

	/** As {@link #await(long)}, but at most {@code maxWaitNanos}. */
	void await(long dueMillis, long maxWaitNanos) {
		if (dueMillis >= 0) {
			scheduleWake(dueMillis);
		}
		try {
			this.wakeUps.tryAcquire(Math.max(0, maxWaitNanos), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			// stopping: the worker's loop ends
		}
	}

	/**
	 * Waits idle after a take that found nothing, until a take may find work: a lease or retry
	 * falls due ({@code dueMillis}), {@link #IDLE_LOOK} passes, or a wake-up came and
	 * {@code wokenTake} started a task. Every instance hears a wake-up and wakes a worker for it,
	 * and only as many should start a task as groups wait: a woken worker's take (see
	 * {@link QueueScripts#wokenTake}) starts nothing quietly, in a few commands, when another worker
	 * took the group first, and the worker waits on. The wait never goes past the look-by moment, so
	 * the worker looks again before the idle mark its take set runs out (see
	 * {@link QueueScripts#IDLE_MARK}). Returns what {@code wokenTake} started (non-null), or null
	 * when the worker is to take as usual (a lease or retry fell due, it is time to look, the
	 * workers stop, or the woken take failed and saw to its own undoing).
	 */
	<T> @Nullable T awaitWork(long dueMillis, BooleanSupplier stopping, Callable<@Nullable T> wokenTake) {
		long lookBy = System.nanoTime() + IDLE_LOOK.toNanos();
		long timed = this.timedWakes.get();
		await(dueMillis, lookBy - System.nanoTime());
		while (!stopping.getAsBoolean() && this.timedWakes.get() == timed && lookBy - System.nanoTime() > 0) {
			try {
				T started = wokenTake.call();
				if (started != null) {
					return started;
				}
			}
			catch (Exception ex) {
				return null;
			}
			await(-1, lookBy - System.nanoTime());
		}
		return null;
	}

	/** One timed wake-up per due moment: a worker that learns of an earlier one schedules it. */
	private void scheduleWake(long dueMillis) {
		long now = System.currentTimeMillis();
		long at = now + dueMillis + 5;
		long current = this.timedWakeAt.get();
		if ((current > at || current < now) && this.timedWakeAt.compareAndSet(current, at)) {
			this.timer.schedule(() -> {
				this.timedWakeAt.compareAndSet(at, Long.MAX_VALUE);
				this.timedWakes.incrementAndGet();
				this.wakeUps.release();
			}, dueMillis + 5, TimeUnit.MILLISECONDS);
		}
	}

}
