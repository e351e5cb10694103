package dev.lockstep.counter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A child JVM standing for one application instance that counts sign-ups. Arguments:
 * {@code <standalone host:port | cluster host:port,host:port,...> <prefix> <name> <threads>}.
 * Commands arrive on the Redis list {@code <prefix>control:<name>}, one at a time, each ending with
 * the wall-clock time (epoch ms) to start it at, so that the three instances start together:
 * <ul>
 * <li>{@code count <key> <limit> <calls>}: {@code calls} increments of 1 from all threads at once;</li>
 * <li>{@code retry <key> <limit> <ids> <seed>}: each id from 0 to {@code ids - 1} incremented with
 * that idempotency id and sent again at once (a retried message), in an order shuffled by
 * {@code seed};</li>
 * <li>{@code read-add-write <key> <limit> <calls>}: the control, field report 4's first design
 * (read the count, compare, write it plus one), which loses updates and oversells;</li>
 * <li>{@code exit}.</li>
 * </ul>
 * Prints {@code READY}, then {@code DONE <command> added=<n> refused=<n> failed=<n> ids=<added ids>}
 * after each command.
 */
final class CountingProcess {

	private CountingProcess() {
	}

	public static void main(String[] args) throws Exception {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));
		LettuceConnectionFactory factory = connect(args[0], args[1]);
		String prefix = args[2];
		String name = args[3];
		int threads = Integer.parseInt(args[4]);
		RedisCounters counters = new RedisCounters(factory);
		counters.setKeyPrefix(prefix);
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		redis.afterPropertiesSet();
		// connected, scripts loaded and the code paths run once before the first measured command
		counters.tryIncrement("warm-up:" + name, 1, 1_000_000);
		counters.tryIncrement("warm-up:" + name, 1, 1_000_000, "warm-up");
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		System.out.println("READY " + name);
		while (true) {
			String command = redis.opsForList().leftPop(prefix + "control:" + name, 1, TimeUnit.SECONDS);
			if (command == null) {
				continue;
			}
			List<String> parts = Arrays.asList(command.split(" "));
			if (parts.get(0).equals("exit")) {
				System.exit(0);
			}
			String key = parts.get(1);
			long limit = Long.parseLong(parts.get(2));
			int calls = Integer.parseInt(parts.get(3));
			long startAt = Long.parseLong(parts.get(parts.size() - 1));
			List<Integer> order = new ArrayList<>();
			for (int i = 0; i < calls; i++) {
				order.add(i);
			}
			if (parts.get(0).equals("retry")) {
				Collections.shuffle(order, new Random(Long.parseLong(parts.get(4))));
			}
			AtomicInteger next = new AtomicInteger();
			AtomicInteger added = new AtomicInteger();
			AtomicInteger refused = new AtomicInteger();
			AtomicInteger failed = new AtomicInteger();
			TreeSet<Integer> addedIds = new TreeSet<>();
			List<Future<?>> running = new ArrayList<>();
			Thread.sleep(Math.max(0, startAt - System.currentTimeMillis()));
			for (int t = 0; t < threads; t++) {
				running.add(pool.submit(() -> {
					for (int i = next.getAndIncrement(); i < calls; i = next.getAndIncrement()) {
						int id = order.get(i);
						try {
							boolean ok = switch (parts.get(0)) {
								case "count" -> counters.tryIncrement(key, limit);
								case "retry" -> {
									boolean first = counters.tryIncrement(key, 1, limit, "message-" + id);
									boolean again = counters.tryIncrement(key, 1, limit, "message-" + id);
									if (first != again) {
										System.out.println("INCONSISTENT message-" + id + " " + first + " then " + again);
									}
									yield first;
								}
								case "read-add-write" -> readAddWrite(redis, prefix + "naive:" + key, limit);
								default -> throw new IllegalArgumentException(command);
							};
							(ok ? added : refused).incrementAndGet();
							if (ok) {
								synchronized (addedIds) {
									addedIds.add(id);
								}
							}
						}
						catch (RuntimeException ex) {
							failed.incrementAndGet();
							System.out.println("FAILED " + ex);
						}
					}
				}));
			}
			for (Future<?> thread : running) {
				thread.get(60, TimeUnit.SECONDS);
			}
			StringBuilder ids = new StringBuilder();
			synchronized (addedIds) {
				addedIds.forEach((id) -> ids.append(ids.isEmpty() ? "" : ",").append(id));
			}
			System.out.println("DONE " + parts.get(0) + " added=" + added + " refused=" + refused + " failed=" + failed
					+ " ids=" + ids);
		}
	}

	/** Field report 4's first sign-up limit: read, compare, write; two callers can both take the last place. */
	private static boolean readAddWrite(StringRedisTemplate redis, String key, long limit) {
		String value = redis.opsForValue().get(key);
		long count = (value != null) ? Long.parseLong(value) : 0;
		if (count >= limit) {
			return false;
		}
		redis.opsForValue().set(key, Long.toString(count + 1));
		return true;
	}

	private static LettuceConnectionFactory connect(String mode, String address) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build();
		LettuceConnectionFactory factory;
		if (mode.equals("cluster")) {
			factory = new LettuceConnectionFactory(new RedisClusterConfiguration(Arrays.asList(address.split(","))), client);
		}
		else {
			String[] hostPort = address.split(":");
			factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(hostPort[0], Integer.parseInt(hostPort[1])), client);
		}
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
