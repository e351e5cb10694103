package dev.lockstep.group;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.SerialGroups;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Serial groups on a real Redis: serial within a group, parallel across groups, nothing left behind. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SerialGroupTests {

	private static LettuceConnectionFactory connectionFactory;

	private final List<RedisLockService> services = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private String prefix;

	private StringRedisTemplate redis;

	@BeforeAll
	static void connect() {
		connectionFactory = RedisConnections.standalone();
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@BeforeEach
	void prepare() {
		this.prefix = RedisConnections.uniquePrefix();
		this.redis = new StringRedisTemplate(connectionFactory);
		this.redis.afterPropertiesSet();
	}

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.services.forEach(RedisLockService::stop);
	}

	private SerialGroups instance() {
		RedisLockService service = RedisConnections.lockService(connectionFactory, this.prefix, (settings) -> {
		});
		this.services.add(service);
		return new LockServiceSerialGroups(service);
	}

	@Test
	void busyGroupsRunSideBySideWhileEachGroupRunsOneCallAtATime() throws Exception {
		List<SerialGroups> instances = List.of(instance(), instance());
		int groups = 8;
		int callsPerGroup = 4;
		long work = 200;
		Map<Integer, AtomicInteger> insideGroup = new ConcurrentHashMap<>();
		AtomicInteger insideAny = new AtomicInteger();
		AtomicInteger mostAtOnce = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> calls = new ArrayList<>();
		for (int call = 0; call < groups * callsPerGroup; call++) {
			int group = call % groups;
			SerialGroups serialGroups = instances.get(call % instances.size());
			calls.add(this.threads.submit(() -> {
				start.await();
				return serialGroups.call("tenant-" + group, Duration.ofSeconds(60), () -> {
					if (insideGroup.computeIfAbsent(group, (g) -> new AtomicInteger()).incrementAndGet() != 1) {
						overlaps.incrementAndGet();
					}
					mostAtOnce.accumulateAndGet(insideAny.incrementAndGet(), Math::max);
					Thread.sleep(work);
					insideAny.decrementAndGet();
					insideGroup.get(group).decrementAndGet();
					return null;
				});
			}));
		}
		long began = System.nanoTime();
		start.countDown();
		for (Future<?> call : calls) {
			call.get(60, TimeUnit.SECONDS);
		}
		Duration makespan = Duration.ofNanos(System.nanoTime() - began);
		assertThat(overlaps).hasValue(0);
		// one group's work is 4 x 200 ms; all eight groups one after another would take 6.4 s
		assertThat(makespan).isLessThan(Duration.ofMillis(callsPerGroup * work * 3));
		assertThat(mostAtOnce.get()).isGreaterThanOrEqualTo(groups / 2);
		assertThat(RedisConnections.keys(this.redis, this.prefix)).isEmpty();
	}

	@Test
	void aCallWhoseTurnDoesNotComeInTimeFailsNamingGroupAndWaitAndLeavesNothing() throws Exception {
		SerialGroups first = instance();
		SerialGroups second = instance();
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		Future<?> busy = this.threads.submit(() -> first.call("import:t1:E7", Duration.ofSeconds(5), () -> {
			running.countDown();
			finish.await(30, TimeUnit.SECONDS);
			return null;
		}));
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		AtomicInteger ran = new AtomicInteger();
		assertThatThrownBy(() -> second.call("import:t1:E7", Duration.ofMillis(400), ran::incrementAndGet))
			.isInstanceOf(LockNotAcquiredException.class)
			.hasMessageContaining("'import:t1:E7'")
			.hasMessageContaining("400ms");
		assertThat(ran).hasValue(0);
		finish.countDown();
		busy.get(10, TimeUnit.SECONDS);
		assertThat(RedisConnections.keys(this.redis, this.prefix)).isEmpty();
	}

	@Test
	void aGroupCallHoldsTheGroupsLockAndNothingElse() throws Exception {
		SerialGroups groups = instance();
		RedisLockService lockService = this.services.get(0);
		String seen = groups.call("orders:42", Duration.ofSeconds(1), () -> {
			LockHandle current = dev.lockstep.LockContext.current().orElseThrow();
			return current.key();
		});
		assertThat(seen).isEqualTo(SerialGroups.LOCK_KEY_PREFIX + "orders:42");
		try (LockHandle plainLock = lockService.acquire("orders:42", Duration.ZERO)) {
			assertThat(groups.call("orders:42", Duration.ofSeconds(1), () -> "not blocked by a lock of the same name"))
				.isNotNull();
		}
	}

	@Test
	void aTurnTakenForALeaseEndsWhenTheLeaseRunsOutAndTheNextCallGetsIt() throws Exception {
		SerialGroups first = instance();
		SerialGroups second = instance();
		LockHandle leased = first.awaitTurn("export:t2", Duration.ZERO, Duration.ofSeconds(1));
		assertThatThrownBy(() -> second.awaitTurn("export:t2", Duration.ofMillis(200), Duration.ofSeconds(5)))
			.isInstanceOf(LockNotAcquiredException.class)
			.hasMessageContaining("Serial group 'export:t2' did not reach this call's turn within 200ms");
		long waitFrom = System.nanoTime();
		try (LockHandle next = second.awaitTurn("export:t2", Duration.ofSeconds(10))) {
			assertThat(next.isHeld()).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - waitFrom)).as("the next turn comes once the lease has run out")
				.isLessThan(Duration.ofSeconds(8));
			assertThat(leased.isHeld()).as("the leased turn, never closed, is over").isFalse();
			assertThat(next.fencingToken()).isGreaterThan(leased.fencingToken());
		}
		leased.close();
		assertThat(RedisConnections.keys(this.redis, this.prefix)).isEmpty();
	}

}
