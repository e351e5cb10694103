package dev.lockstep.ratelimit;

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

import dev.lockstep.RateLimiter.Decision;
import dev.lockstep.lock.RedisFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rate-limit script driven at random against a real Redis: calls on a few keys at random
 * times (random pauses, bursts), each key's limit and period changed now and then. Redis decides
 * on its own clock, which the test cannot read; each call's decision happened between the call's
 * send and its reply, and the test's monotonic clock runs at the same rate, so the checks use
 * those brackets:
 * <ul>
 * <li>never more than the bound: for any two allowed calls i and j (same limit and period), the
 * allowed calls from i to j number at most {@code limit + (reply_j - send_i) / interval};</li>
 * <li>a refusal is honest: the next allowed call came no sooner than its {@code retryAfter}
 * (reply of that call minus send of the refused one), and a call sent {@code retryAfter} after the
 * refusal's reply, with no call between, is allowed;</li>
 * <li>{@code remaining} is honest: a call right after one that left {@code remaining > 0} is
 * allowed, and a refused call reports 0 remaining;</li>
 * <li>a key without calls for the longest period it was drawn under leaves Redis.</li>
 * </ul>
 * Seeded: a failure names its seed and step; {@code -Dlockstep.rate-limit.seeds=N} runs N more seeds.
 *
 * <p>A seed replays the calls, not their decisions: it fixes which key is called when, under which
 * limit and period, after which pause, and when a key idles ({@link #aSeedReplaysTheSameCalls}
 * checks that), but the script decides on Redis's clock, and the test is about calls at real,
 * uneven times (a burst, a pause of a few ms, a call a hair after a refusal's {@code retryAfter}).
 * Whether a call falls inside or outside an interval of a few ms depends on how long the calls
 * before it took, so the same seed may allow and refuse other calls on a slower machine; the checks
 * above hold either way. Spacing the calls out far enough for the decisions to replay would make
 * every interval some seconds long and leave the bursts and the edges of the intervals untested.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RateLimitProtocolRandomTests {

	private static final int STEPS = 700;

	private static final String[] KEYS = { "a", "b" };

	private static final long MAX_PER_MILLIS = 200;

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	/** One call as the test saw it. */
	private record Call(long sent, long replied, Decision decision) {
	}

	/** Each key's limit and period, and the calls made under them since they last changed. */
	private final Map<String, long[]> settings = new HashMap<>();

	private final Map<String, List<Call>> calls = new HashMap<>();

	private final Map<String, Long> lastCall = new HashMap<>();

	@ParameterizedTest(name = "seed {0}")
	@ValueSource(longs = { 1, 2, 3 })
	void invariantsHoldUnderRandomCallTimes(long seed) throws Exception {
		run(seed, seed + ":", STEPS);
		int extra = Integer.getInteger("lockstep.rate-limit.seeds", 0);
		for (int i = 0; i < extra; i++) {
			reset();
			run(1000 + i, (1000 + i) + ":", STEPS);
		}
	}

	/**
	 * The same seed makes the same calls at the same pauses (their decisions, made on Redis's clock,
	 * may differ: see the class's Javadoc); the run says whether they replayed too.
	 */
	@Test
	void aSeedReplaysTheSameCalls() throws Exception {
		long seed = Long.getLong("lockstep.rate-limit.seed", System.nanoTime());
		StringBuilder decisions = new StringBuilder();
		String first = run(seed, "a:", STEPS / 5, decisions);
		String firstDecisions = decisions.toString();
		reset();
		decisions.setLength(0);
		String again = run(seed, "b:", STEPS / 5, decisions);
		assertThat(again).as("the calls of seed %d replayed", seed).isEqualTo(first);
		System.out.println("rate limit replay of seed " + seed + ": decisions "
				+ (decisions.toString().equals(firstDecisions) ? "the same" : "not the same"));
	}

	private void reset() {
		this.settings.clear();
		this.calls.clear();
		this.lastCall.clear();
	}

	private String run(long seed, String keyPrefix, int steps) throws Exception {
		return run(seed, keyPrefix, steps, new StringBuilder());
	}

	/**
	 * One run, under its own key prefix; answers the calls it made (keys, settings, pauses), and adds
	 * each call's decision to {@code decisions}.
	 */
	private String run(long seed, String keyPrefix, int steps, StringBuilder decisions) throws Exception {
		Random random = new Random(seed);
		RedisRateLimiter limiter = new RedisRateLimiter(this.redis.factory());
		String prefix = this.redis.prefix() + keyPrefix;
		limiter.setKeyPrefix(prefix);
		limiter.tryAcquire("warm-up", 1, Duration.ofMillis(1));
		StringBuilder course = new StringBuilder();
		try {
			for (int step = 0; step < steps; step++) {
				String what = "";
				try {
					what = step(random, limiter, prefix, course);
				}
				catch (AssertionError ex) {
					throw new AssertionError("seed " + seed + ", step " + step + " (" + what + "): " + ex.getMessage(), ex);
				}
				// a refusal's retryAfter is real time: left out
				decisions.append(what.replaceAll("retryAfter=[^\\]]*", "")).append('\n');
			}
		}
		finally {
			limiter.close();
		}
		return course.toString();
	}

	/** One step; adds what it did to {@code course} (without the decision) and answers it with the decision. */
	private String step(Random random, RedisRateLimiter limiter, String prefix, StringBuilder course) throws Exception {
		String key = KEYS[random.nextInt(KEYS.length)];
		int dice = random.nextInt(100);
		if (dice < 4 || !this.settings.containsKey(key)) {
			long limit = 1 + random.nextInt(8);
			long perMillis = 20 + random.nextInt((int) MAX_PER_MILLIS - 20);
			this.settings.put(key, new long[] { limit, perMillis });
			this.calls.put(key, new ArrayList<>());
			String what = "limit " + key + " to " + limit + " per " + perMillis + "ms";
			course.append(what).append('\n');
			return what;
		}
		if (dice < 8) {
			// idle past the longest period it was drawn under: the key leaves Redis
			long idleFrom = this.lastCall.getOrDefault(key, 0L);
			Thread.sleep(Math.max(0, MAX_PER_MILLIS + 2 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleFrom)));
			assertThat(this.redis.template().hasKey(prefix + "{rate:" + key + "}"))
				.as("a key idle for its period has left Redis").isFalse();
			course.append("idle ").append(key).append('\n');
			return "idle " + key;
		}
		long pause = (dice < 40) ? random.nextInt(15) : 0;
		if (pause > 0) {
			Thread.sleep(pause);
		}
		long[] setting = this.settings.get(key);
		List<Call> history = this.calls.get(key);
		Call previous = history.isEmpty() ? null : history.get(history.size() - 1);
		long sent = System.nanoTime();
		Decision decision = limiter.tryAcquire(key, setting[0], Duration.ofMillis(setting[1]));
		Call call = new Call(sent, System.nanoTime(), decision);
		this.lastCall.put(key, call.replied());
		history.add(call);
		course.append("call ").append(key).append(" after ").append(pause).append("ms\n");
		String what = "call " + key + " (" + setting[0] + " per " + setting[1] + "ms): " + decision;
		try {
			check(history, setting[0], TimeUnit.MILLISECONDS.toNanos(setting[1]), previous, call);
		}
		catch (AssertionError ex) {
			throw new AssertionError(what + ": " + ex.getMessage(), ex);
		}
		return what;
	}

	private static void check(List<Call> history, long limit, long perNanos, Call previous, Call call) {
		// the interval as the script rounds it: up to a whole microsecond
		long interval = TimeUnit.MICROSECONDS.toNanos((TimeUnit.NANOSECONDS.toMicros(perNanos) + limit - 1) / limit);
		Decision decision = call.decision();
		if (!decision.allowed()) {
			assertThat(decision.remaining()).as("a refused call has nothing remaining").isZero();
			// a bucket drawn under a longer period earlier may be further ahead than this period
			assertThat(decision.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(MAX_PER_MILLIS));
		}
		else {
			assertThat(decision.retryAfter()).isZero();
			assertThat(decision.remaining()).isBetween(0L, limit - 1);
		}
		if (previous != null && previous.decision().allowed() && previous.decision().remaining() > 0) {
			assertThat(decision.allowed()).as("the previous call left %d", previous.decision().remaining()).isTrue();
		}
		if (previous != null && !previous.decision().allowed()
				&& call.sent() - previous.replied() >= previous.decision().retryAfter().toNanos()) {
			assertThat(decision.allowed()).as("sent after the previous refusal's retryAfter").isTrue();
		}
		if (decision.allowed()) {
			// the last refusal before this call said this was not due sooner
			for (int i = history.size() - 2; i >= 0; i--) {
				Call earlier = history.get(i);
				if (earlier.decision().allowed()) {
					break;
				}
				assertThat(call.replied() - earlier.sent()).as("allowed no sooner than a refusal's retryAfter")
					.isGreaterThanOrEqualTo(earlier.decision().retryAfter().toNanos());
			}
			int allowed = 0;
			for (int i = history.size() - 1; i >= 0; i--) {
				Call earlier = history.get(i);
				if (earlier.decision().allowed()) {
					allowed++;
					double bound = limit + (double) (call.replied() - earlier.sent()) / interval;
					assertThat((double) allowed).as("allowed calls since a call %d ms earlier",
							TimeUnit.NANOSECONDS.toMillis(call.replied() - earlier.sent())).isLessThanOrEqualTo(bound);
				}
			}
		}
	}

}
