package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockUnavailableException;
import dev.lockstep.counter.RedisCounters;
import dev.lockstep.ratelimit.RedisRateLimiter;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Redis refusing connections: Lockstep's calls fail at once while Lettuce knows its connection is
 * down (they used to wait the whole command timeout in Lettuce's queue, a thread held each), and
 * work again as soon as Lettuce reconnects, within the reconnect delay docs/operations.md gives.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisRefusingTests {

	/** The default command timeout: the old answer came after exactly this. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	/** Well under the command timeout, with room for a loaded machine. */
	private static final Duration AT_ONCE = Duration.ofSeconds(1);

	/** The reconnect delay docs/operations.md suggests: 100 ms doubling up to 2 s. */
	private static final Delay RECONNECT = Delay.exponential(Duration.ofMillis(100), Duration.ofSeconds(2), 2,
			TimeUnit.MILLISECONDS);

	private RedisServer server;

	private ClientResources resources;

	private LettuceConnectionFactory factory;

	private RedisLockService locks;

	private RedisCounters counters;

	private RedisRateLimiter limiter;

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.resources = DefaultClientResources.builder().reconnectDelay(RECONNECT).build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(60))
			.clientResources(this.resources)
			.build();
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				client);
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.locks = RedisConnections.lockService(this.factory, "refusing:",
				(settings) -> settings.setCommandTimeout(COMMAND_TIMEOUT));
		this.counters = new RedisCounters(this.factory);
		this.counters.setKeyPrefix("refusing:");
		this.counters.setCommandTimeout(COMMAND_TIMEOUT);
		this.limiter = new RedisRateLimiter(this.factory);
		this.limiter.setCommandTimeout(COMMAND_TIMEOUT);
	}

	@AfterEach
	void stop() {
		this.locks.stop();
		this.counters.close();
		this.limiter.close();
		this.factory.destroy();
		this.resources.shutdown();
		this.server.close();
	}

	@Test
	void whileRedisRefusesConnectionsEachCallFailsAtOnceNamingRedis() throws Exception {
		everyFeatureWorks();
		this.server.kill();
		// Lettuce hears of the closed socket at once; the pause is not the bound under test
		Thread.sleep(300);
		for (int i = 0; i < 3; i++) {
			assertFailsAtOnce(() -> locked(Duration.ofSeconds(2)), "lock 'report'");
			assertFailsAtOnce(() -> this.counters.tryIncrement("seats", 1, 10), "counter 'seats'");
			assertFailsAtOnce(() -> this.limiter.tryAcquire("api", 5, Duration.ofMinutes(1)), "rate limit 'api'");
		}
	}

	@Test
	void whenRedisReturnsCallsWorkAgainWithinTheReconnectDelay() throws Exception {
		everyFeatureWorks();
		this.server.kill();
		// long enough for Lettuce's back-off to reach its 2 s ceiling
		Thread.sleep(4_000);
		assertFailsAtOnce(() -> locked(Duration.ZERO), "lock 'report'");
		long back = System.nanoTime();
		this.server.restart();
		Duration served = null;
		while (served == null) {
			assertThat(Duration.ofNanos(System.nanoTime() - back)).as("time back to service after Redis returned")
				.isLessThan(Duration.ofSeconds(5));
			try {
				locked(Duration.ZERO);
				served = Duration.ofNanos(System.nanoTime() - back);
			}
			catch (LockUnavailableException ex) {
				Thread.sleep(50);
			}
		}
		// the reconnect delay's ceiling, with slack for the restart and a loaded machine
		assertThat(served).isLessThan(Duration.ofSeconds(4));
		everyFeatureWorks();
	}

	private void everyFeatureWorks() {
		assertThat(locked(Duration.ofSeconds(2))).isEqualTo("ran");
		assertThat(this.counters.tryIncrement("seats", 1, 1_000_000)).isTrue();
		assertThat(this.limiter.tryAcquire("api", 1_000_000, Duration.ofMinutes(1)).allowed()).isTrue();
	}

	private String locked(Duration waitTime) {
		StringBuilder ran = new StringBuilder();
		this.locks.runLocked("report", waitTime, () -> ran.append("ran"));
		return ran.toString();
	}

	private static void assertFailsAtOnce(Supplier<?> call, String named) {
		long start = System.nanoTime();
		assertThatThrownBy(call::get).isInstanceOf(LockUnavailableException.class)
			.hasMessageContaining(named)
			.hasMessageContaining("Redis at ");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to fail with Redis refusing connections")
			.isLessThan(AT_ONCE);
	}

}
