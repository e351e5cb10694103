package dev.lockstep.counter;

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
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Bounded counters on a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CountersTests {

	private static final int THREADS = 32;

	private static final int ATTEMPTS_PER_THREAD = 50;

	private static final long LIMIT = 500;

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private RedisCounters counters;

	@BeforeEach
	void createCounters() {
		this.counters = new RedisCounters(this.redis.factory());
		this.counters.setKeyPrefix(this.redis.prefix());
	}

	@AfterEach
	void closeCounters() {
		this.counters.close();
	}

	@Test
	void concurrentIncrementsNeverPassTheLimit() throws Exception {
		AtomicInteger rejected = new AtomicInteger();
		this.counters.setRejectionListener((key) -> rejected.incrementAndGet());
		int successes = race(() -> this.counters.tryIncrement("signup:event-1", LIMIT));
		assertThat(successes).isEqualTo(LIMIT);
		assertThat(rejected).hasValue(THREADS * ATTEMPTS_PER_THREAD - (int) LIMIT);
		assertThat(this.counters.current("signup:event-1")).isEqualTo(LIMIT);
		assertThat(countKeys()).containsExactly(this.redis.prefix() + "{counter:signup:event-1}");
	}

	/**
	 * The control: the read-add-write of field report 4, from the same threads on the same Redis,
	 * lets more than the limit in; the race above would catch a counter that did the same.
	 */
	@Test
	void aReadAddWriteFromTheSameThreadsOvershoots() throws Exception {
		String key = this.redis.prefix() + "naive";
		int successes = race(() -> {
			String value = this.redis.template().opsForValue().get(key);
			long count = (value != null) ? Long.parseLong(value) : 0;
			if (count + 1 > LIMIT) {
				return false;
			}
			Thread.onSpinWait();
			this.redis.template().opsForValue().set(key, Long.toString(count + 1));
			return true;
		});
		assertThat(successes).isGreaterThan((int) LIMIT);
	}

	/** {@code THREADS} threads, released at once, each making {@code ATTEMPTS_PER_THREAD} attempts; the successes. */
	private static int race(Attempt attempt) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			CountDownLatch start = new CountDownLatch(1);
			AtomicInteger successes = new AtomicInteger();
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				threads.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < ATTEMPTS_PER_THREAD; i++) {
						if (attempt.run()) {
							successes.incrementAndGet();
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			return successes.get();
		}
		finally {
			pool.shutdownNow();
		}
	}

	@FunctionalInterface
	private interface Attempt {

		boolean run() throws Exception;

	}

	@Test
	void anIncrementIsAllOrNothing() {
		assertThat(this.counters.tryIncrement("seats", 7, 10)).isTrue();
		assertThat(this.counters.tryIncrement("seats", 4, 10)).isFalse();
		assertThat(this.counters.current("seats")).isEqualTo(7);
		assertThat(this.counters.tryIncrement("seats", 3, 10)).isTrue();
		assertThat(this.counters.tryIncrement("seats", 0, 10)).isTrue();
		assertThat(this.counters.tryIncrement("seats", 10)).isFalse();
		assertThat(this.counters.current("seats")).isEqualTo(10);
	}

	@Test
	void aRetriedIdempotentIncrementCountsOnceAndAnswersAsTheFirstDid() {
		assertThat(this.counters.tryIncrement("seats", 2, 3, "message-1")).isTrue();
		assertThat(this.counters.tryIncrement("seats", 2, 3, "message-1")).isTrue();
		assertThat(this.counters.current("seats")).isEqualTo(2);
		assertThat(this.counters.tryIncrement("seats", 2, 3, "message-2")).isFalse();
		this.counters.decrement("seats", 2);
		// the refusal is remembered too: the same message is answered as it was the first time
		assertThat(this.counters.tryIncrement("seats", 2, 3, "message-2")).isFalse();
		assertThat(this.counters.current("seats")).isZero();
		assertThat(this.counters.tryIncrement("seats", 2, 3, "message-3")).isTrue();
		assertThat(this.counters.current("seats")).isEqualTo(2);
	}

	@Test
	void anIdempotencyIdIsForgottenAfterItsWindow() {
		this.counters.setIdempotencyWindow(Duration.ofMillis(300));
		assertThat(this.counters.tryIncrement("seats", 1, 5, "message-1")).isTrue();
		assertThat(this.counters.tryIncrement("seats", 1, 5, "message-1")).isTrue();
		assertThat(this.counters.current("seats")).isEqualTo(1);
		await().atMost(Duration.ofSeconds(5)).until(() -> countKeys().size() == 1);
		assertThat(this.counters.tryIncrement("seats", 1, 5, "message-1")).isTrue();
		assertThat(this.counters.current("seats")).isEqualTo(2);
	}

	@Test
	void aWindowedCountExpiresFromItsFirstIncrement() {
		Duration window = Duration.ofMillis(800);
		long started = System.nanoTime();
		assertThat(this.counters.tryIncrement("daily", 1, 2, window)).isTrue();
		assertThat(this.counters.tryIncrement("daily", 1, 2, window)).isTrue();
		assertThat(this.counters.tryIncrement("daily", 1, 2, window)).isFalse();
		long ttl = this.redis.template().getExpire(this.redis.prefix() + "{counter:daily}", TimeUnit.MILLISECONDS);
		assertThat(ttl).isPositive().isLessThanOrEqualTo(window.toMillis());
		await().atMost(Duration.ofSeconds(5)).until(() -> this.counters.current("daily") == 0);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(window.minusMillis(50));
		assertThat(countKeys()).isEmpty();
		assertThat(this.counters.tryIncrement("daily", 2, 2, window)).isTrue();
	}

	@Test
	void aDecrementNeverGoesBelowZeroAndAZeroCountLeavesRedis() {
		// the calls' records (against Lettuce sending a call again) are kept twice the command timeout
		this.counters.setCommandTimeout(Duration.ofSeconds(1));
		assertThat(this.counters.decrement("seats")).isZero();
		assertThat(countKeys()).isEmpty();
		assertThat(this.counters.tryIncrement("seats", 3, 10)).isTrue();
		assertThat(this.counters.decrement("seats")).isEqualTo(2);
		assertThat(this.counters.decrement("seats", 5)).isZero();
		assertThat(this.counters.current("seats")).isZero();
		assertThat(countKeys()).isEmpty();
		assertThat(this.redis.keys()).as("the calls' records").hasSize(4).allMatch((key) -> key.contains(":call:"));
		await().atMost(Duration.ofSeconds(6)).until(() -> this.redis.keys().isEmpty());
	}

	/** The keys in Redis but the calls' records, which expire by themselves. */
	private List<String> countKeys() {
		return this.redis.keys().stream().filter((key) -> !key.contains(":call:")).toList();
	}

	@Test
	void aWindowedCountKeepsItsWindowAtZero() {
		assertThat(this.counters.tryIncrement("daily", 1, 1, Duration.ofMinutes(1))).isTrue();
		assertThat(this.counters.decrement("daily")).isZero();
		assertThat(this.redis.template().getExpire(this.redis.prefix() + "{counter:daily}", TimeUnit.MILLISECONDS))
			.isPositive();
	}

	@Test
	void badArgumentsAreNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.counters.tryIncrement(" ", 1))
			.withMessageContaining("key must not be blank");
		assertThatIllegalArgumentException().isThrownBy(() -> this.counters.tryIncrement("a{b}", 1))
			.withMessageContaining("key must not contain '{'");
		assertThatIllegalArgumentException().isThrownBy(() -> this.counters.tryIncrement("seats", -1, 5))
			.withMessage("amount must not be negative, was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> this.counters.tryIncrement("seats", 1, -5))
			.withMessage("limit must not be negative, was -5");
		assertThatIllegalArgumentException().isThrownBy(() -> this.counters.decrement("seats", -2))
			.withMessage("amount must not be negative, was -2");
		assertThatIllegalArgumentException().isThrownBy(() -> this.counters.tryIncrement("seats", 1, 5, " "))
			.withMessageContaining("idempotencyId must not be blank");
		assertThatIllegalArgumentException().isThrownBy(() -> this.counters.tryIncrement("seats", 1, 5, Duration.ZERO))
			.withMessageContaining("expiry must be at least 1ms");
		assertThat(this.redis.keys()).isEmpty();
	}

	@Test
	void redisDownFailsClosed() {
		RedisServer server = RedisServer.start();
		LettuceConnectionFactory factory = RedisConnections.standalone(server.host(), server.port());
		RedisCounters down = new RedisCounters(factory);
		down.setCommandTimeout(Duration.ofMillis(500));
		AtomicLong rejected = new AtomicLong();
		down.setRejectionListener((key) -> rejected.incrementAndGet());
		try {
			assertThat(down.tryIncrement("seats", 5)).isTrue();
			server.kill();
			assertThatThrownBy(() -> down.tryIncrement("seats", 5)).isInstanceOf(LockUnavailableException.class)
				.hasMessageContaining("counter 'seats'");
			assertThatThrownBy(() -> down.current("seats")).isInstanceOf(LockUnavailableException.class);
			assertThat(rejected).hasValue(0);
		}
		finally {
			down.close();
			factory.destroy();
			server.close();
		}
	}

}
