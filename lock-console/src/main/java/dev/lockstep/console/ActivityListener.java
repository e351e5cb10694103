package dev.lockstep.console;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.lockstep.LockListener;

/**
 * Counts what this instance's locks, queue workers and guarded jobs did since the last heartbeat,
 * in memory (Lockstep's own listener hook, so nothing is added to their Redis commands): tasks
 * ended per queue (done, failed), lock waits in {@link #WAIT_BOUNDS buckets}, job runs and their
 * total time. The heartbeat takes the counts ({@link #drain()}) and adds them to the history in
 * Redis ({@link ActivityHistory}).
 */
final class ActivityListener implements LockListener {

	/** Upper bounds (ms) of the lock wait buckets; the last bucket holds longer waits. */
	static final long[] WAIT_BOUNDS = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000 };

	private final Map<Counted, AtomicLong> counts = new ConcurrentHashMap<>();

	@Override
	public void acquired(String key, long fencingToken, Duration waited) {
		add(new Counted(Kind.LOCK_WAIT, "", Integer.toString(bucket(waited.toMillis()))), 1);
	}

	@Override
	public void taskEnded(String queue, String outcome, Duration ran) {
		if (outcome.equals("done")) {
			add(new Counted(Kind.TASKS, queue, "done"), 1);
		}
		else if (outcome.equals("retry") || outcome.equals("dead")) {
			add(new Counted(Kind.TASKS, queue, "failed"), 1);
		}
	}

	@Override
	public void jobRan(String job, Duration took, boolean succeeded) {
		add(new Counted(Kind.JOB, job, "n"), 1);
		add(new Counted(Kind.JOB, job, "ms"), took.toMillis());
	}

	/** Takes the counts gathered since the last call (non-zero ones only). */
	List<Drained> drain() {
		List<Drained> drained = new ArrayList<>();
		this.counts.forEach((counted, value) -> {
			long count = value.getAndSet(0);
			if (count != 0) {
				drained.add(new Drained(counted, count));
			}
		});
		return drained;
	}

	static int bucket(long millis) {
		for (int i = 0; i < WAIT_BOUNDS.length; i++) {
			if (millis <= WAIT_BOUNDS[i]) {
				return i;
			}
		}
		return WAIT_BOUNDS.length;
	}

	private void add(Counted counted, long amount) {
		this.counts.computeIfAbsent(counted, (key) -> new AtomicLong()).addAndGet(amount);
	}

	enum Kind {

		/** Tasks ended, per queue: fields {@code done} and {@code failed}. */
		TASKS,

		/** Lock waits of acquired locks, all keys together: field = bucket index. */
		LOCK_WAIT,

		/** Guarded job runs, per job: fields {@code n} (runs) and {@code ms} (their total time). */
		JOB

	}

	/** What is counted: a kind, a queue or job name ({@code ""} for lock waits) and a field. */
	record Counted(Kind kind, String name, String field) {
	}

	/** A count taken by {@link #drain()}. */
	record Drained(Counted counted, long count) {
	}

}
