package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One JVM's share of a {@link GroupJob}: worker threads that, once started, take the share's
 * tasks one after another in submission order and run each in its group's turn, as consumers
 * of a message queue would. A task's work is a sleep: on two cores, 32 threads could not all
 * busy-wait at once, and an import task waiting on its database does not hold a core either.
 */
final class GroupJobShare {

	private static final long GIVE_UP_MILLIS = TimeUnit.MINUTES.toMillis(2);

	private final GroupJob job;

	private final SerialGroupClient client;

	private final List<GroupJob.Task> tasks;

	private final AtomicInteger next = new AtomicInteger();

	private final CountDownLatch go = new CountDownLatch(1);

	private final AtomicReference<Throwable> failure = new AtomicReference<>();

	private final List<Thread> threads = new ArrayList<>();

	private final List<List<GroupTaskRun>> runsByThread = new ArrayList<>();

	/** Starts the threads, which wait for {@link #start()}. */
	GroupJobShare(GroupJob job, int jvm, SerialGroupClient client) {
		this.job = job;
		this.client = client;
		this.tasks = job.share(jvm);
		for (int index = 0; index < job.threads(); index++) {
			List<GroupTaskRun> runs = new ArrayList<>();
			this.runsByThread.add(runs);
			Thread thread = new Thread(() -> work(runs), "bench-e-" + jvm + "-" + index);
			this.threads.add(thread);
			thread.start();
		}
	}

	/** Lets the threads take tasks; the wall-clock time of the start, in microseconds. */
	long start() {
		long now = GroupTaskRun.nowMicros();
		this.go.countDown();
		return now;
	}

	/** Waits for every task to have run; their runs, or the first failure. */
	List<GroupTaskRun> await() throws InterruptedException {
		long deadline = System.currentTimeMillis() + GIVE_UP_MILLIS;
		for (Thread thread : this.threads) {
			thread.join(Math.max(1, deadline - System.currentTimeMillis()));
		}
		if (this.threads.stream().anyMatch(Thread::isAlive)) {
			this.threads.forEach(Thread::interrupt);
			throw new IllegalStateException("Tasks of job " + this.job.name() + " still running after two minutes");
		}
		if (this.failure.get() != null) {
			throw new IllegalStateException("A task of job " + this.job.name() + " failed: " + this.failure.get(),
					this.failure.get());
		}
		List<GroupTaskRun> runs = new ArrayList<>();
		this.runsByThread.forEach(runs::addAll);
		return runs;
	}

	private void work(List<GroupTaskRun> runs) {
		try {
			this.go.await();
			for (int index = this.next.getAndIncrement(); index < this.tasks.size() && this.failure.get() == null;
					index = this.next.getAndIncrement()) {
				GroupJob.Task task = this.tasks.get(index);
				long[] times = new long[2];
				this.client.run(this.job.group(task.group()), () -> {
					times[0] = GroupTaskRun.nowMicros();
					sleep(this.job.workMicros());
					times[1] = GroupTaskRun.nowMicros();
				});
				runs.add(new GroupTaskRun(task.group(), task.sequence(), times[0], times[1]));
			}
		}
		catch (Throwable ex) {
			this.failure.compareAndSet(null, ex);
		}
	}

	/** Parks until {@code micros} have passed, however often the thread wakes early. */
	private static void sleep(long micros) {
		long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(micros);
		for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

}
