package dev.lockstep.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockUnavailableException;
import dev.lockstep.RateLimiter.Decision;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The rate limiter on a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RateLimiterTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private RedisRateLimiter limiter;

	@BeforeEach
	void createLimiter() {
		this.limiter = new RedisRateLimiter(this.redis.factory());
		this.limiter.setKeyPrefix(this.redis.prefix());
	}

	@AfterEach
	void closeLimiter() {
		this.limiter.close();
	}

	/**
	 * Threads calling as fast as they can for 5 s against 200 per second: over the time t from
	 * the first call sent to the last reply, at most 200 * t + 200 (the burst) are allowed, and at
	 * least 99% of that.
	 */
	@Test
	void threadsAsFastAsTheyCanGetTheRateAndNoMore() throws Exception {
		int limit = 200;
		Duration per = Duration.ofSeconds(1);
		int threads = 8;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		AtomicInteger allowed = new AtomicInteger();
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		long[] window = new long[1];
		// the window ends when the last call came back, not when the test's thread saw them all end
		AtomicLong lastReply = new AtomicLong();
		// the connection opened and the script loaded before the clock starts
		this.limiter.tryAcquire("warm-up", 1, per);
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				running.add(pool.submit(() -> {
					start.await();
					while (System.nanoTime() - window[0] < TimeUnit.SECONDS.toNanos(5)) {
						calls.incrementAndGet();
						if (this.limiter.tryAcquire("api:tenant-1", limit, per).allowed()) {
							allowed.incrementAndGet();
						}
						lastReply.accumulateAndGet(System.nanoTime(), Math::max);
					}
					return null;
				}));
			}
			window[0] = System.nanoTime();
			start.countDown();
			for (Future<?> thread : running) {
				thread.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		double seconds = (lastReply.get() - window[0]) / 1e9;
		double bound = limit * seconds + limit;
		assertThat(calls.get()).as("calls made").isGreaterThan((int) (2 * bound));
		assertThat((double) allowed.get()).as("allowed in %.3f s of %d calls", seconds, calls.get())
			.isLessThanOrEqualTo(bound)
			.isGreaterThanOrEqualTo(0.99 * bound);
	}

	@Test
	void aRestedKeyAllowsABurstOfTheLimitThenOneCallPerInterval() {
		Duration per = Duration.ofSeconds(10);
		for (int i = 0; i < 5; i++) {
			Decision decision = this.limiter.tryAcquire("burst", 5, per);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(4 - i);
			assertThat(decision.retryAfter()).isZero();
		}
		Decision refused = this.limiter.tryAcquire("burst", 5, per);
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.remaining()).isZero();
		// one call per 2 s comes back; the burst went out within a moment, so the first is due in about 2 s
		assertThat(refused.retryAfter()).isGreaterThan(Duration.ofMillis(1500)).isLessThanOrEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void aRefusedCallIsAllowedOnceItsRetryAfterHasPassed() throws Exception {
		// a call every second comes back
		Duration per = Duration.ofSeconds(2);
		assertThat(this.limiter.tryAcquire("retry", 2, per).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("retry", 2, per).allowed()).isTrue();
		Decision refused = this.limiter.tryAcquire("retry", 2, per);
		assertThat(refused.allowed()).isFalse();
		Thread.sleep(refused.retryAfter().toMillis() + 5);
		assertThat(this.limiter.tryAcquire("retry", 2, per).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("retry", 2, per).allowed()).isFalse();
	}

	/** A new deployment with another limit reads the same bucket: what was used stays used. */
	@Test
	void aChangedLimitKeepsWhatWasUsed() {
		Duration per = Duration.ofSeconds(10);
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.tryAcquire("full", 10, per).allowed()).isTrue();
		}
		assertThat(this.limiter.tryAcquire("full", 20, per).allowed()).as("raised limit, bucket used up").isFalse();
		assertThat(this.limiter.tryAcquire("full", 5, per).allowed()).as("lowered limit, bucket used up").isFalse();

		for (int i = 0; i < 5; i++) {
			assertThat(this.limiter.tryAcquire("half", 10, per).allowed()).isTrue();
		}
		// half of 10 used is half of 20 used: this call leaves 9 (a reset bucket would leave 19)
		Decision raised = this.limiter.tryAcquire("half", 20, per);
		assertThat(raised.allowed()).isTrue();
		assertThat(raised.remaining()).isBetween(8L, 10L);
	}

	@Test
	void aKeyExpiresOnceItsBucketIsFullAgain() {
		// a call refills 200 ms of the bucket: even a loaded machine's calls come faster than that
		Duration per = Duration.ofSeconds(2);
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.tryAcquire("idle", 10, per).allowed()).isTrue();
		}
		String key = this.redis.prefix() + "{rate:idle}";
		assertThat(this.redis.keys()).containsExactly(key);
		assertThat(this.redis.template().getExpire(key, TimeUnit.MILLISECONDS)).isPositive().isLessThanOrEqualTo(2000);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.keys().isEmpty());
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.tryAcquire("idle", 10, per).allowed()).isTrue();
		}
		assertThat(this.limiter.tryAcquire("idle", 10, per).allowed()).isFalse();
	}

	@Test
	void keysAreSeparate() {
		assertThat(this.limiter.tryAcquire("a", 1, Duration.ofMinutes(1)).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("a", 1, Duration.ofMinutes(1)).allowed()).isFalse();
		assertThat(this.limiter.tryAcquire("b", 1, Duration.ofMinutes(1)).allowed()).isTrue();
	}

	@Test
	void badArgumentsAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire(" ", 1, Duration.ofSeconds(1)))
			.withMessageContaining("key must not be blank");
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire("a}", 1, Duration.ofSeconds(1)))
			.withMessageContaining("key must not contain '{' or '}'");
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire("a", 0, Duration.ofSeconds(1)))
			.withMessage("limit must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire("a", 1, Duration.ZERO))
			.withMessage("per must be at least 1ms, was 0s");
		assertThat(this.redis.keys()).isEmpty();
	}

	@Test
	void redisDownRefusesOrAllowsAsConfigured() {
		RedisServer server = RedisServer.start();
		LettuceConnectionFactory factory = RedisConnections.standalone(server.host(), server.port());
		RedisRateLimiter down = new RedisRateLimiter(factory);
		down.setCommandTimeout(Duration.ofMillis(500));
		List<Decision> seen = new ArrayList<>();
		down.setDecisionListener((key, decision) -> seen.add(decision));
		try {
			assertThat(down.tryAcquire("a", 1, Duration.ofMinutes(1)).allowed()).isTrue();
			assertThat(down.tryAcquire("a", 1, Duration.ofMinutes(1)).allowed()).isFalse();
			server.kill();
			assertThatThrownBy(() -> down.tryAcquire("a", 1, Duration.ofMinutes(1)))
				.isInstanceOf(LockUnavailableException.class)
				.hasMessageContaining("rate limit 'a'")
				.hasMessageContaining("when-unavailable=refuse");
			down.setWhenUnavailable(WhenUnavailable.ALLOW);
			assertThat(down.tryAcquire("a", 1, Duration.ofMinutes(1)).allowed()).isTrue();
			assertThat(seen).extracting(Decision::allowed).containsExactly(true, false, true);
		}
		finally {
			down.close();
			factory.destroy();
			server.close();
		}
	}

}
