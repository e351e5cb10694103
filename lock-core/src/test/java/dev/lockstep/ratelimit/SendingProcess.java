package dev.lockstep.ratelimit;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;

/**
 * A child JVM standing for one instance of a rate-limited service whose clock is off by a given
 * skew. Arguments: {@code <host> <port> <prefix> <name> <skew ms> <threads>}. Commands arrive on
 * the Redis list {@code <prefix>control:<name>}: {@code send <limiter> <key> <limit> <per ms> <window ms>}
 * has every thread call as fast as it can for the window, where the limiter is {@code lockstep}
 * ({@link RedisRateLimiter}, on Redis's clock) or {@code client-clock} (the control: a token
 * bucket fed with this instance's skewed clock); {@code exit} ends the JVM. Prints {@code READY},
 * then {@code DONE allowed=<n> refused=<n> failed=<n> clock=<this instance's clock at the start, ms>}.
 */
final class SendingProcess {

	private SendingProcess() {
	}

	public static void main(String[] args) throws Exception {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])));
		factory.afterPropertiesSet();
		factory.start();
		String prefix = args[2];
		String name = args[3];
		Clock clock = Clock.offset(Clock.systemUTC(), Duration.ofMillis(Long.parseLong(args[4])));
		int threads = Integer.parseInt(args[5]);
		RedisRateLimiter limiter = new RedisRateLimiter(factory);
		limiter.setKeyPrefix(prefix);
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		redis.afterPropertiesSet();
		DefaultRedisScript<Long> clientClock = new DefaultRedisScript<>(new ClassPathResource(
				"client-clock-bucket.lua", SendingProcess.class).getContentAsString(StandardCharsets.UTF_8), Long.class);
		limiter.tryAcquire("warm-up:" + name, 1_000_000, Duration.ofSeconds(1));
		redis.execute(clientClock, List.of(prefix + "warm-up:" + name), "1000000", "1000", Long.toString(clock.millis()));
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		System.out.println("READY " + name);
		while (true) {
			String command = redis.opsForList().leftPop(prefix + "control:" + name, 1, TimeUnit.SECONDS);
			if (command == null) {
				continue;
			}
			String[] parts = command.split(" ");
			if (parts[0].equals("exit")) {
				System.exit(0);
			}
			boolean lockstep = parts[1].equals("lockstep");
			String key = parts[2];
			long limit = Long.parseLong(parts[3]);
			long per = Long.parseLong(parts[4]);
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(parts[5]));
			long startedAt = clock.millis();
			AtomicLong allowed = new AtomicLong();
			AtomicLong refused = new AtomicLong();
			AtomicLong failed = new AtomicLong();
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				running.add(pool.submit(() -> {
					while (System.nanoTime() - until < 0) {
						try {
							boolean ok = lockstep ? limiter.tryAcquire(key, limit, Duration.ofMillis(per)).allowed()
									: redis.execute(clientClock, List.of(prefix + key), Long.toString(limit),
											Long.toString(per), Long.toString(clock.millis())) == 1L;
							(ok ? allowed : refused).incrementAndGet();
						}
						catch (RuntimeException ex) {
							failed.incrementAndGet();
							System.out.println("FAILED " + ex);
						}
					}
				}));
			}
			for (Future<?> thread : running) {
				thread.get(120, TimeUnit.SECONDS);
			}
			System.out.println("DONE allowed=" + allowed + " refused=" + refused + " failed=" + failed + " clock=" + startedAt);
		}
	}

}
