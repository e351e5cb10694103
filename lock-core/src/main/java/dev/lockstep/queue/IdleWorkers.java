package dev.lockstep.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Where one queue's idle workers wait: for a wake-up (a group's next task may start), for the
 * moment the next lease or retry falls due (one timer per due moment), or at most
 * {@link #IDLE_LOOK} (or the lease, when it is shorter: see {@link #awaitWork}), holding at most
 * one wake-up per worker. A wake-up that names another instance (the one whose worker went idle
 * last) wakes a worker here only {@link #HEDGE_DELAY} later, and not at all if a woken take of
 * that instance answered it meanwhile: one worker looks for the group rather than one on every
 * instance, and a named instance that stalled or died holds no group up for longer than that.
 */
final class IdleWorkers {

	/** Longest wait of an idle worker before it looks for work on its own (a wake-up lost in a reconnect). */
	static final Duration IDLE_LOOK = Duration.ofSeconds(30);

	/** The first byte of a message for the workers of one instance (see {@link #heard}). */
	private static final byte SIGNAL = (byte) 0xFF;

	/** How long a wake-up that names another instance waits for that instance's woken take. */
	static final Duration HEDGE_DELAY = Duration.ofMillis(5);

	private final int concurrency;

	/**
	 * Per other instance, the wake-ups named for it whose delay runs here and which no woken take
	 * of that instance answered yet.
	 */
	private final Map<String, Integer> hedges = new ConcurrentHashMap<>();

	private volatile long hedgeDelayNanos = HEDGE_DELAY.toNanos();

	private final Semaphore wakeUps = new Semaphore(0);

	private final AtomicLong timedWakeAt = new AtomicLong(Long.MAX_VALUE);

	/**
	 * Whether a look was asked for: a timed wake-up fired (a lease or retry fell due, or it is time
	 * for the look once a lease), or an empty message came (a retry was set to fall due later). The
	 * next worker woken takes as usual, which handles what fell due and tells when the next falls
	 * due, where a woken take would not.
	 */
	private final AtomicBoolean lookAsked = new AtomicBoolean();

	/** The lease in ms when it is shorter than {@link #IDLE_LOOK}, else -1 (see {@link #awaitWork}). */
	private final long leaseLookMillis;

	private volatile ScheduledExecutorService timer;

	private final String instanceId;

	IdleWorkers(int concurrency, String instanceId, Duration leaseTime) {
		this.concurrency = concurrency;
		this.instanceId = instanceId;
		this.leaseLookMillis = (leaseTime.compareTo(IDLE_LOOK) < 0) ? leaseTime.toMillis() : -1;
	}

	/** Starts afresh (the workers start, or start again), timed wake-ups on {@code timer}. */
	void reset(ScheduledExecutorService timer) {
		this.timer = timer;
		this.wakeUps.drainPermits();
		this.timedWakeAt.set(Long.MAX_VALUE);
		this.lookAsked.set(false);
		this.hedges.clear();
	}

	/** For tests: how long a wake-up named for another instance waits (default {@link #HEDGE_DELAY}). */
	void hedgeDelay(Duration delay) {
		this.hedgeDelayNanos = delay.toNanos();
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

	/**
	 * A message on the queue's channel. Those for the workers of one instance start with the byte
	 * {@code 0xFF} (which UTF-8 text never holds, so no group name reads as one), a letter and the
	 * instance id: {@code w}, a group's next task may start and that instance is told first (its
	 * worker went idle last); {@code t}, a woken take of that instance started a task (one wake-up
	 * for it is answered); {@code n}, a woken take of that instance found no group waiting (every
	 * wake-up for it heard so far is answered: their groups were taken). An empty message (a failed
	 * task's retry was set to fall due later, or an earlier version's idle mark) wakes one idle
	 * worker here to take as usual, and so learn when the next lease or retry falls due. Anything
	 * else (a group readied by a sweep, a redrive or a resume, an earlier version's wake-up) wakes
	 * one idle worker here.
	 */
	void heard(byte[] message) {
		if (message.length == 0) {
			this.lookAsked.set(true);
			wake();
			return;
		}
		if (message.length < 2 || message[0] != SIGNAL) {
			wake();
			return;
		}
		byte kind = message[1];
		String instance = new String(message, 2, message.length - 2, StandardCharsets.UTF_8);
		if (instance.equals(this.instanceId)) {
			if (kind == 'w') {
				wake();
			}
		}
		else if (kind == 'w') {
			wakeUnlessAnswered(instance);
		}
		else if (kind == 't') {
			takeHedge(instance);
		}
		else if (kind == 'n') {
			this.hedges.remove(instance);
		}
		else {
			wake();
		}
	}

	/**
	 * A group's next task may start, and {@code instance} was told to wake a worker for it: wakes
	 * one here after the hedge delay, unless a woken take of {@code instance} answered it first.
	 */
	private void wakeUnlessAnswered(String instance) {
		ScheduledExecutorService current = this.timer;
		if (current == null) {
			// the workers have not started: their first takes look anyway
			return;
		}
		this.hedges.merge(instance, 1, Integer::sum);
		try {
			current.schedule(() -> {
				if (takeHedge(instance)) {
					wake();
				}
			}, this.hedgeDelayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the workers stop
		}
	}

	/** Drops one wake-up named for {@code instance} that waits here; whether there was one. */
	private boolean takeHedge(String instance) {
		boolean[] taken = new boolean[1];
		this.hedges.computeIfPresent(instance, (key, left) -> {
			taken[0] = true;
			return (left > 1) ? left - 1 : null;
		});
		return taken[0];
	}

	/**
	 * Redis confirmed the SUBSCRIBE of the queue's channel, the first time or again after a
	 * reconnect: a wake-up published before it was heard by nobody here, and the task it was for
	 * would wait for {@link #IDLE_LOOK} (a worker that started with a listener added to a running
	 * instance may have taken nothing and gone idle before the confirmation). Every idle worker
	 * wakes (or the next to go idle, up to one per worker): the first takes as usual, the others as
	 * woken workers, so that as many groups start as workers are idle.
	 */
	void subscribed() {
		this.lookAsked.set(true);
		int missing = this.concurrency - this.wakeUps.availablePermits();
		if (missing > 0) {
			this.wakeUps.release(missing);
		}
	}

	/** Every worker wakes (the workers stop). */
	void wakeAll() {
		this.wakeUps.release(this.concurrency);
	}

	/**
	 * Waits for a wake-up or {@code retry} (the worker's take failed: Redis did not answer), on this
	 * worker's own clock: workers failing together each try again, not one of them.
	 */
	void awaitRetry(Duration retry) {
		await(-1, retry.toNanos());
	}

	/** Waits for a wake-up, for {@code dueMillis} (a timed wake-up for every worker here; -1: none), or at most {@code maxWaitNanos}. */
	private void await(long dueMillis, long maxWaitNanos) {
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
	 * {@code wokenTake} started a task. A wake-up may wake a worker on more than one instance,
	 * and only as many should start a task as groups wait: a woken worker's take (see
	 * {@link QueueScripts#wokenTake}) starts nothing, in a few commands (and says so to the other
	 * instances), when another worker took the group first, and the worker waits on. The wait never goes past the look-by moment, so
	 * the worker looks again before the idle mark its take set runs out (see
	 * {@link QueueScripts#IDLE_MARK}). When the lease is shorter than {@link #IDLE_LOOK}, a worker
	 * here looks at least once a lease: a woken take says nothing of the leases of tasks started
	 * since this instance last looked (a task another instance's woken take started), and one of
	 * them may run out, its instance gone, long before {@link #IDLE_LOOK}; a look within a lease of
	 * the last finds every lease before it runs out, and its take sets the timer for it. Returns
	 * what {@code wokenTake} started (non-null), or null when the worker is to take as usual (a
	 * lease or retry fell due, a look was asked for, it is time to look, the workers stop, or the
	 * woken take failed and saw to its own undoing).
	 */
	<T> @Nullable T awaitWork(long dueMillis, BooleanSupplier stopping, Callable<@Nullable T> wokenTake) {
		long lookBy = System.nanoTime() + IDLE_LOOK.toNanos();
		await(lookWithin(dueMillis), lookBy - System.nanoTime());
		while (!stopping.getAsBoolean() && !this.lookAsked.getAndSet(false) && lookBy - System.nanoTime() > 0) {
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

	/** {@code dueMillis} (-1: nothing falls due), or a lease from now when that is sooner and shorter than {@link #IDLE_LOOK}. */
	private long lookWithin(long dueMillis) {
		if (this.leaseLookMillis < 0) {
			return dueMillis;
		}
		return (dueMillis < 0) ? this.leaseLookMillis : Math.min(dueMillis, this.leaseLookMillis);
	}

	/** One timed wake-up per due moment: a worker that learns of an earlier one schedules it. */
	private void scheduleWake(long dueMillis) {
		long now = System.currentTimeMillis();
		long at = now + dueMillis + 5;
		while (true) {
			long current = this.timedWakeAt.get();
			if (current <= at && current >= now) {
				// one as soon or sooner is on its way
				return;
			}
			if (this.timedWakeAt.compareAndSet(current, at)) {
				break;
			}
		}
		this.timer.schedule(() -> {
			this.timedWakeAt.compareAndSet(at, Long.MAX_VALUE);
			this.lookAsked.set(true);
			this.wakeUps.release();
		}, dueMillis + 5, TimeUnit.MILLISECONDS);
	}

}
