package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Watches critical sections from outside the lock, through plain Redis keys that every process
 * sees, the way a protected resource would.
 *
 * <p>Per key, a section INCRs an "inside" counter on entry (it must read 1) and DECRs it on
 * exit; in between it reads the key's tally "{@code <sections>:<highest fencing token>}",
 * checks its own token is higher and writes the tally back with one more section. Redis runs
 * commands one at a time, so two sections of one key overlap, as the server sees them, exactly
 * when one's INCR falls between the other's INCR and DECR: then it reads 2. Nothing is sampled
 * and no clock is compared, so every overlap at the server is counted, from whichever process.
 * A section spans four round trips, so a lock that let two holders in at once would make their
 * sections collide at the server; and the tally's read-modify-write loses an update whenever two
 * sections interleave there, which the test sees as fewer recorded sections than were run.
 */
final class SectionProbe {

	private final StringRedisTemplate redis;

	private final String prefix;

	private final AtomicInteger overlaps = new AtomicInteger();

	private final AtomicInteger regressions = new AtomicInteger();

	/** {@code prefix} is where the probe's keys go; it must not hold anything else. */
	SectionProbe(StringRedisTemplate redis, String prefix) {
		this.redis = redis;
		this.prefix = prefix;
	}

	/** Counts this process in and waits until {@code workers} processes are, so all start together. */
	void awaitWorkers(int workers, Duration timeout) {
		this.redis.opsForValue().increment(this.prefix + "ready");
		long deadline = System.nanoTime() + timeout.toNanos();
		while (readyWorkers() < workers) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Only " + readyWorkers() + " of " + workers + " workers ready after " + timeout);
			}
			LockSupport.parkNanos(5_000_000);
		}
	}

	private long readyWorkers() {
		String ready = this.redis.opsForValue().get(this.prefix + "ready");
		return (ready != null) ? Long.parseLong(ready) : 0;
	}

	/** One critical section on {@code key}, entered with {@code fencingToken} (0 when no lock was taken). */
	void section(String key, long fencingToken) {
		Long inside = this.redis.opsForValue().increment(insideKey(this.prefix, key));
		if (inside == null || inside != 1) {
			this.overlaps.incrementAndGet();
		}
		try {
			Tally last = Tally.of(this.redis.opsForValue().get(tallyKey(this.prefix, key)));
			if (fencingToken != 0 && fencingToken <= last.highestToken()) {
				this.regressions.incrementAndGet();
			}
			Tally next = new Tally(last.sections() + 1, Math.max(fencingToken, last.highestToken()));
			this.redis.opsForValue().set(tallyKey(this.prefix, key), next.toString());
		}
		finally {
			this.redis.opsForValue().decrement(insideKey(this.prefix, key));
		}
	}

	/** Sections that saw another section of the same key at the server. */
	int overlaps() {
		return this.overlaps.get();
	}

	/** Sections whose fencing token was not above every token seen before on the same key. */
	int regressions() {
		return this.regressions.get();
	}

	/** The tally of {@code key} as the probes under {@code prefix} left it. */
	static Tally tally(StringRedisTemplate redis, String prefix, String key) {
		return Tally.of(redis.opsForValue().get(tallyKey(prefix, key)));
	}

	/** How many sections of {@code key} are inside right now, by the probes under {@code prefix}. */
	static long inside(StringRedisTemplate redis, String prefix, String key) {
		String inside = redis.opsForValue().get(insideKey(prefix, key));
		return (inside != null) ? Long.parseLong(inside) : 0;
	}

	private static String insideKey(String prefix, String key) {
		return prefix + key + ":inside";
	}

	private static String tallyKey(String prefix, String key) {
		return prefix + key + ":tally";
	}

	/**
	 * What the protected resource remembers of one key.
	 * @param sections the sections recorded; lower than the sections run when updates were lost
	 * @param highestToken the highest fencing token seen
	 */
	record Tally(long sections, long highestToken) {

		static Tally of(String value) {
			if (value == null) {
				return new Tally(0, 0);
			}
			int colon = value.indexOf(':');
			return new Tally(Long.parseLong(value.substring(0, colon)), Long.parseLong(value.substring(colon + 1)));
		}

		@Override
		public String toString() {
			return this.sections + ":" + this.highestToken;
		}

	}

}
