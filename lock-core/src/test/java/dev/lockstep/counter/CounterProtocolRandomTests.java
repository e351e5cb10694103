package dev.lockstep.counter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.Replays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counter scripts driven at random against a real Redis and checked against a model after
 * every step: increments by random amounts against limits that change from call to call (raised
 * and lowered below the count), idempotent increments whose ids come again (retried messages),
 * decrements by more or less than the count, and reads. Invariants: a count is never above the
 * limit of the increment that raised it and never below 0; an increment is all or nothing and
 * allowed exactly when it fits; an id seen before answers as it did the first time and changes
 * nothing; a call sent again (Lettuce after a reconnect), with or without an idempotency id and
 * whatever ran since, answers as it did the first time and changes nothing; a count at 0 without
 * expiry leaves no key. Seeded: a failure names its seed and step;
 * {@code -Dlockstep.counter.seeds=N} runs N more seeds. A seed replays its run reply for reply
 * (nothing here reads a clock: the calls' records outlive any run), which
 * {@link #aSeedReplaysTheSameRun} checks.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CounterProtocolRandomTests {

	private static final int STEPS = 1500;

	private static final String[] KEYS = { "a", "b", "c" };

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final Map<String, Long> counts = new HashMap<>();

	/** The answer each idempotency id got first, per key. */
	private final Map<String, Boolean> answers = new HashMap<>();

	/** Calls that may be sent again (a reply lost in a reconnect), with the reply they got first. */
	private final List<SentCall> sent = new ArrayList<>();

	private int callIds;

	@ParameterizedTest(name = "seed {0}")
	@ValueSource(longs = { 1, 2, 3 })
	void invariantsHoldUnderRandomOperations(long seed) {
		run(seed, STEPS);
		int extra = Integer.getInteger("lockstep.counter.seeds", 0);
		for (int i = 0; i < extra; i++) {
			reset();
			run(1000 + i, STEPS);
		}
	}

	/** The same seed gives the same run, reply for reply. */
	@Test
	void aSeedReplaysTheSameRun() {
		long seed = Long.getLong("lockstep.counter.seed", System.nanoTime());
		String first = run(seed, STEPS / 3);
		reset();
		String again = run(seed, STEPS / 3);
		Replays.assertSameRun(seed, first, again);
	}

	/** Forgets the run before: its keys in Redis and the model. */
	private void reset() {
		this.redis.template().delete(this.redis.keys());
		this.counts.clear();
		this.answers.clear();
		this.sent.clear();
		this.callIds = 0;
	}

	/** One run; answers its course: each step with the replies it got, and the counts at the end. */
	private String run(long seed, int steps) {
		Random random = new Random(seed);
		CounterScripts scripts = new CounterScripts(new RedisScripts(this.redis.factory()));
		StringBuilder course = new StringBuilder();
		for (int step = 0; step < steps; step++) {
			String what = "";
			try {
				what = step(random, scripts);
				checkInvariants(scripts);
			}
			catch (AssertionError | Exception ex) {
				throw new AssertionError("seed " + seed + ", step " + step + " (" + what + "): " + ex.getMessage(), ex);
			}
			course.append(what.replace(this.redis.prefix(), "")).append('\n');
		}
		return course.append(new java.util.TreeMap<>(this.counts)).toString();
	}

	private String step(Random random, CounterScripts scripts) throws Exception {
		String key = KEYS[random.nextInt(KEYS.length)];
		CounterKeys keys = CounterKeys.of(this.redis.prefix(), key);
		long count = this.counts.getOrDefault(key, 0L);
		int dice = random.nextInt(100);
		if (dice < 10 && !this.sent.isEmpty()) {
			return sendAgain(this.sent.remove(random.nextInt(this.sent.size())), scripts);
		}
		CounterKeys.CallRecord call = keys.call("c" + (++this.callIds), Duration.ofMinutes(1));
		boolean mayBeSentAgain = random.nextInt(4) == 0;
		if (dice < 55) {
			long amount = random.nextInt(4);
			long limit = random.nextInt(12);
			String id = (random.nextInt(3) == 0) ? "m" + random.nextInt(15) : null;
			String what = "increment " + key + " by " + amount + " within " + limit + " (count " + count + ", id " + id + ")";
			CounterKeys.CallRecord record = (id != null) ? keys.idempotent(id, Duration.ofMinutes(10)) : call;
			CounterScripts.Incremented reply = scripts.increment(keys, amount, limit, null, record).get(10, TimeUnit.SECONDS);
			if (mayBeSentAgain) {
				this.sent.add(new SentCall(keys, amount, limit, record, reply.added(), reply.count()));
			}
			Boolean first = (id != null) ? this.answers.get(key + "/" + id) : null;
			what += ": " + reply.added() + " " + reply.count();
			if (first != null) {
				assertThat(reply.added()).as("an id seen before answers as the first time").isEqualTo(first);
				assertThat(reply.count()).as("and changes nothing").isEqualTo(count);
				return what;
			}
			boolean fits = count + amount <= limit;
			assertThat(reply.added()).as("added exactly when it fits").isEqualTo(fits);
			long after = fits ? count + amount : count;
			assertThat(reply.count()).isEqualTo(after);
			if (fits) {
				assertThat(after).as("never above the limit that let it in").isLessThanOrEqualTo(limit);
			}
			this.counts.put(key, after);
			if (id != null) {
				this.answers.put(key + "/" + id, fits);
			}
			return what;
		}
		if (dice < 85) {
			long amount = random.nextInt(5);
			String what = "decrement " + key + " by " + amount + " (count " + count + ")";
			long after = scripts.decrement(keys, amount, call).get(10, TimeUnit.SECONDS);
			assertThat(after).isEqualTo(Math.max(0, count - amount));
			if (mayBeSentAgain) {
				this.sent.add(new SentCall(keys, amount, -1, call, false, after));
			}
			this.counts.put(key, after);
			return what + ": " + after;
		}
		long current = scripts.current(keys).get(10, TimeUnit.SECONDS);
		assertThat(current).isEqualTo(count);
		return "current " + key + ": " + current;
	}

	/**
	 * Lettuce sends a call again after a reconnect, whatever ran since: it answers as it did the
	 * first time, and the count does not move.
	 */
	private String sendAgain(SentCall call, CounterScripts scripts) throws Exception {
		long count = this.counts.getOrDefault(call.keys().key(), 0L);
		if (call.limit() < 0) {
			long after = scripts.decrement(call.keys(), call.amount(), call.record()).get(10, TimeUnit.SECONDS);
			assertThat(after).as("a decrement sent again answers as the first time").isEqualTo(call.count());
		}
		else {
			CounterScripts.Incremented reply = scripts.increment(call.keys(), call.amount(), call.limit(), null, call.record())
				.get(10, TimeUnit.SECONDS);
			assertThat(reply.added()).as("an increment sent again answers as the first time").isEqualTo(call.added());
		}
		assertThat(scripts.current(call.keys()).get(10, TimeUnit.SECONDS)).as("and changes nothing").isEqualTo(count);
		return "sent again: " + call;
	}

	/** A call as first sent and answered ({@code limit} -1 for a decrement, whose reply is {@code count}). */
	private record SentCall(CounterKeys keys, long amount, long limit, CounterKeys.CallRecord record, boolean added,
			long count) {
	}

	private void checkInvariants(CounterScripts scripts) throws Exception {
		for (String key : KEYS) {
			String stored = this.redis.template().opsForValue().get(this.redis.prefix() + "{counter:" + key + "}");
			// (the calls' records beside the count are checked by the calls sent again)
			long count = this.counts.getOrDefault(key, 0L);
			assertThat(count).isNotNegative();
			if (count == 0) {
				assertThat(stored).as("a count at 0 leaves no key").isNull();
			}
			else {
				assertThat(stored).isEqualTo(Long.toString(count));
			}
		}
	}

}
