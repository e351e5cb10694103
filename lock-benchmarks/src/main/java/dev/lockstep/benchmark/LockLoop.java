package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

import org.HdrHistogram.Histogram;

/**
 * Threads that take and release locks back to back, first for a warm-up and then for a measured
 * window. Counts acquisitions, hand-offs (an acquisition by another thread than the lock's
 * previous holder), the wait of each acquisition, the Redis commands of the window, and overlaps:
 * a counter per key that the holder raises after taking the lock and lowers before releasing it
 * finds any moment with two holders.
 */
final class LockLoop {

	private final int threads;

	private final IntFunction<LockClient> clientOfThread;

	private final IntFunction<String> keyOfThread;

	private final Map<String, KeyState> keys = new ConcurrentHashMap<>();

	private final LongAdder acquisitions = new LongAdder();

	private final LongAdder handoffs = new LongAdder();

	private final LongAdder overlaps = new LongAdder();

	private final AtomicReference<Throwable> failure = new AtomicReference<>();

	private volatile boolean measuring;

	private volatile boolean stopped;

	/**
	 * @param threads how many threads take locks
	 * @param clientOfThread the client each thread uses (one shared or one each)
	 * @param keyOfThread the key each thread locks (one shared or one each)
	 */
	LockLoop(int threads, IntFunction<LockClient> clientOfThread, IntFunction<String> keyOfThread) {
		this.threads = threads;
		this.clientOfThread = clientOfThread;
		this.keyOfThread = keyOfThread;
	}

	/**
	 * Opens {@code clients} clients of {@code library}, runs a thread on each, all locking
	 * {@code key}, for the run's warm-up and measured window, closes the clients and returns the
	 * measured window.
	 */
	static Window onOneKey(Library library, int clients, String key, RunContext context, String threadName)
			throws Exception {
		try (Clients<LockClient> opened = Clients.open(clients, () -> library.connect(context.redis()))) {
			return new LockLoop(clients, opened::get, (thread) -> key).run(context, threadName);
		}
	}

	/** Runs the threads for the run's warm-up and measured window, on its Redis, and returns the measured window. */
	Window run(RunContext context, String threadName) throws Exception {
		return run(context.redis(), context.settings().warmup(), context.settings().measure(), threadName);
	}

	/** Runs the threads for {@code warmup} plus {@code measure} and returns the measured window. */
	Window run(BenchmarkRedis redis, Duration warmup, Duration measure, String threadName) throws Exception {
		List<Thread> workers = new ArrayList<>();
		List<Histogram> waits = new ArrayList<>();
		for (int index = 0; index < this.threads; index++) {
			Histogram wait = new Histogram(3);
			waits.add(wait);
			int thread = index;
			workers.add(new Thread(() -> work(thread, wait), threadName + "-" + index));
		}
		workers.forEach(Thread::start);
		sleep(warmup);
		CommandCounts commandsBefore = redis.commandsExecuted();
		long start = System.nanoTime();
		this.measuring = true;
		sleep(measure);
		this.measuring = false;
		long nanos = System.nanoTime() - start;
		CommandCounts commands = redis.commandsExecuted().since(commandsBefore);
		this.stopped = true;
		for (Thread worker : workers) {
			worker.join(TimeUnit.MINUTES.toMillis(1));
			if (worker.isAlive()) {
				throw new IllegalStateException(worker.getName() + " is still waiting for its lock a minute after the end");
			}
		}
		if (this.failure.get() != null) {
			throw new IllegalStateException("A locking thread failed", this.failure.get());
		}
		Histogram allWaits = new Histogram(3);
		waits.forEach(allWaits::add);
		return new Window(this.acquisitions.sum(), this.handoffs.sum(), nanos, commands, allWaits,
				this.overlaps.sum());
	}

	private void work(int thread, Histogram waits) {
		LockClient client = this.clientOfThread.apply(thread);
		String key = this.keyOfThread.apply(thread);
		KeyState state = this.keys.computeIfAbsent(key, (name) -> new KeyState());
		try {
			while (!this.stopped) {
				long start = System.nanoTime();
				LockClient.Hold hold = client.lock(key);
				long acquired = System.nanoTime();
				if (state.holders.incrementAndGet() != 1) {
					this.overlaps.increment();
				}
				int previous = state.lastHolder.getAndSet(thread);
				state.holders.decrementAndGet();
				hold.close();
				if (this.measuring) {
					this.acquisitions.increment();
					if (previous != thread) {
						this.handoffs.increment();
					}
					waits.recordValue(TimeUnit.NANOSECONDS.toMicros(acquired - start));
				}
			}
		}
		catch (Throwable ex) {
			this.failure.compareAndSet(null, ex);
			this.stopped = true;
		}
	}

	private static void sleep(Duration duration) throws InterruptedException {
		Thread.sleep(duration.toMillis());
	}

	/** The holders of one key right now and the thread that held it last. */
	private static final class KeyState {

		private final AtomicInteger holders = new AtomicInteger();

		private final AtomicInteger lastHolder = new AtomicInteger(-1);

	}

	/**
	 * What happened in the measured window.
	 * @param acquisitions locks taken (and released)
	 * @param handoffs acquisitions from another thread than the previous holder
	 * @param nanos the window's length
	 * @param commands Redis commands executed in the window, Lua-internal ones included
	 * @param waitMicros how long each acquisition waited, in microseconds
	 * @param overlaps times a holder found another holder of its key (warm-up included)
	 */
	record Window(long acquisitions, long handoffs, long nanos, CommandCounts commands, Histogram waitMicros,
			long overlaps) {

		double perSecond(long count) {
			return count * 1e9 / this.nanos;
		}

		double commandsPer(long count) {
			return (count > 0) ? (double) this.commands.total() / count : Double.NaN;
		}

	}

}
