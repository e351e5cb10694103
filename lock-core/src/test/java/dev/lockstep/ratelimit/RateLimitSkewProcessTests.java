package dev.lockstep.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three instances in JVMs of their own whose clocks disagree by seconds (0, +2 s and -2 s, as the
 * job guard's skew tests set them), eight threads each calling as fast as they can against 100
 * calls a second. A limit computed on Redis's clock lets through the burst and 100 a second,
 * within 1%, never more; the control, a token bucket on each caller's clock, lets through far
 * more, so the count would notice a limiter that the clocks distort.
 * <p>
 * The window is 10 s; {@code -Dlockstep.test.rate-window-seconds} shortens it (at least 3).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RateLimitSkewProcessTests {

	private static final List<String> JVM = List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	private static final long[] SKEWS = { 0, 2_000, -2_000 };

	private static final int THREADS = 8;

	private static final long LIMIT = 100;

	private static final long PER_MILLIS = 1_000;

	private static final long WINDOW_MILLIS = Math.max(3, Long.getLong("lockstep.test.rate-window-seconds", 10)) * 1000;

	private static final List<JavaProcess> processes = new ArrayList<>();

	private static LettuceConnectionFactory factory;

	private static StringRedisTemplate redis;

	private static String prefix;

	@BeforeAll
	static void start() {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		factory = RedisConnections.standalone(endpoint.host(), endpoint.port());
		redis = new StringRedisTemplate(factory);
		redis.afterPropertiesSet();
		prefix = RedisConnections.uniquePrefix();
		for (int i = 0; i < SKEWS.length; i++) {
			processes.add(JavaProcess.start("sending-" + i, SendingProcess.class, JVM, endpoint.host(),
					Integer.toString(endpoint.port()), prefix, "sending-" + i, Long.toString(SKEWS[i]),
					Integer.toString(THREADS)));
		}
		processes.forEach((process) -> process.awaitLine("READY", Duration.ofSeconds(90)));
	}

	@AfterAll
	static void stop() {
		for (int i = 0; i < processes.size(); i++) {
			redis.opsForList().rightPush(prefix + "control:sending-" + i, "exit");
		}
		processes.forEach((process) -> process.stop(Duration.ofSeconds(10)));
		if (factory != null) {
			factory.destroy();
		}
	}

	@Test
	void instancesWithClocksSecondsApartGetTheBurstAndTheRateWithinOnePercentAndNeverMore() {
		long expected = LIMIT + LIMIT * WINDOW_MILLIS / PER_MILLIS;
		Sent sent = send("lockstep", "api:tenant-7", WINDOW_MILLIS);
		System.out.printf("lockstep: %d allowed (expected %d, at most %d on Redis's clock), %d refused, in %d ms of Redis time%n",
				sent.allowed(), expected, sent.mostAllowed(), sent.refused(), sent.redisMicros() / 1000);
		assertThat(sent.failed()).isZero();
		assertThat(sent.allowed()).as("never more than the burst and the rate over the time calls were made")
			.isLessThanOrEqualTo(sent.mostAllowed());
		assertThat((double) sent.allowed()).as("the burst and the rate, within 1%")
			.isBetween(expected * 0.99, expected * 1.01);
		assertThat(sent.refused()).as("the instances sent far more than the limit").isGreaterThan(10 * expected);
		await().atMost(Duration.ofMillis(PER_MILLIS + 1_000))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> !redis.hasKey(prefix + "{rate:api:tenant-7}"));
	}

	/** The control: a bucket computed with each caller's clock lets through more than the same count allows. */
	@Test
	void theControlABucketOnTheCallersClocksLetsThroughFarMore() {
		Sent sent = send("client-clock", "control:tenant-7", 1_000);
		System.out.printf("client-clock control: %d allowed (at most %d on Redis's clock), %d refused%n", sent.allowed(),
				sent.mostAllowed(), sent.refused());
		assertThat(sent.allowed()).isGreaterThan(sent.mostAllowed());
	}

	/** All three instances send at once for {@code windowMillis}; their counts and Redis's time around it. */
	private static Sent send(String limiter, String key, long windowMillis) {
		List<Integer> seen = processes.stream().map((process) -> process.lines().size()).toList();
		long before = redisMicros();
		for (int i = 0; i < processes.size(); i++) {
			redis.opsForList().rightPush(prefix + "control:sending-" + i,
					String.join(" ", "send", limiter, key, Long.toString(LIMIT), Long.toString(PER_MILLIS),
							Long.toString(windowMillis)));
		}
		long allowed = 0;
		long refused = 0;
		long failed = 0;
		for (int i = 0; i < processes.size(); i++) {
			int from = seen.get(i);
			int[] index = { 0 };
			String done = processes.get(i).awaitLine((text) -> index[0]++ >= from && text.startsWith("DONE "),
					Duration.ofMillis(windowMillis + 60_000));
			Map<String, Long> values = new HashMap<>();
			for (String pair : done.substring("DONE ".length()).split(" ")) {
				values.put(pair.substring(0, pair.indexOf('=')), Long.parseLong(pair.substring(pair.indexOf('=') + 1)));
			}
			allowed += values.get("allowed");
			refused += values.get("refused");
			failed += values.get("failed");
		}
		long redisMicros = redisMicros() - before;
		// a full bucket at the first call, then one call per interval of the time that passed on Redis
		long mostAllowed = LIMIT + (redisMicros * LIMIT) / (PER_MILLIS * 1000) + 1;
		return new Sent(allowed, refused, failed, redisMicros, mostAllowed);
	}

	private static long redisMicros() {
		return redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS));
	}

	private record Sent(long allowed, long refused, long failed, long redisMicros, long mostAllowed) {
	}

}
