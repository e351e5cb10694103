package dev.lockstep.benchmark;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * A thread of its own that waits for a lock on behalf of scenario D, and the means to tell when
 * it is really blocked on the lock. No library says so, so the thread's state is watched: parked
 * without a break for the settle time. A Redis round trip on loopback takes well under a
 * millisecond, so a waiter parked that long is waiting for the lock (subscribed, queued or
 * sleeping between tries), not for a reply.
 */
final class BlockedWaiter implements AutoCloseable {

	private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

	private static final long GIVE_UP_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final LockClient client;

	private final ExecutorService executor;

	private final AtomicInteger holders = new AtomicInteger();

	private final LongAdder overlaps = new LongAdder();

	private volatile @Nullable Thread thread;

	private volatile boolean started;

	private @Nullable Future<Long> acquiredAt;

	BlockedWaiter(LockClient client, String threadName) {
		this.client = client;
		this.executor = Executors.newSingleThreadExecutor((task) -> new Thread(task, threadName));
	}

	/** The holder has taken the lock (counted so that a waiter getting in too early is noticed). */
	void holdersEnter() {
		this.holders.incrementAndGet();
	}

	/** The holder is about to release the lock. */
	void holdersLeave() {
		this.holders.decrementAndGet();
	}

	/** Starts waiting for {@code key} on the waiter's thread; it releases as soon as it holds the lock. */
	void startWaiting(String key) {
		this.started = false;
		this.acquiredAt = this.executor.submit(() -> {
			this.thread = Thread.currentThread();
			this.started = true;
			LockClient.Hold hold = this.client.lock(key);
			long at = System.nanoTime();
			if (this.holders.incrementAndGet() != 1) {
				this.overlaps.increment();
			}
			this.holders.decrementAndGet();
			hold.close();
			return at;
		});
	}

	/** Returns once the waiter has stayed parked for {@code settleNanos} (or already holds the lock: an overlap). */
	void awaitBlocked(long settleNanos) {
		long deadline = System.nanoTime() + GIVE_UP_NANOS;
		long parkedSince = -1;
		while (System.nanoTime() < deadline) {
			Thread waiter = this.thread;
			if (this.acquiredAt.isDone()) {
				return;
			}
			long now = System.nanoTime();
			if (!this.started || waiter == null || !isParked(waiter)) {
				parkedSince = -1;
			}
			else if (parkedSince < 0) {
				parkedSince = now;
			}
			else if (now - parkedSince >= settleNanos) {
				return;
			}
			LockSupport.parkNanos(POLL_NANOS);
		}
		throw new IllegalStateException("The waiter never blocked on the lock within a minute");
	}

	/** When the waiter's lock call returned, by {@link System#nanoTime()}. */
	long acquiredAt() throws Exception {
		return this.acquiredAt.get(1, TimeUnit.MINUTES);
	}

	long overlaps() {
		return this.overlaps.sum();
	}

	private static boolean isParked(Thread thread) {
		Thread.State state = thread.getState();
		return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
