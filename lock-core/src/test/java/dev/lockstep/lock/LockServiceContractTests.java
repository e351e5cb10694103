package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.LockContext;
import dev.lockstep.LockHandle;
import dev.lockstep.LockKeyException;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.LockNotAcquiredException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The semantics every deployment of the lock service must keep, run against a standalone Redis
 * and against a Redis Cluster by the subclasses. Each service created here stands for one
 * application instance.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class LockServiceContractTests {

	private final List<RedisLockService> services = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	protected String prefix;

	protected StringRedisTemplate redis;

	/** The connection factory of the deployment under test, shared by the test class. */
	protected abstract LettuceConnectionFactory connectionFactory();

	/**
	 * The keys under this test's prefix, read with {@code KEYS} on the services' own connection, so
	 * that the read comes after every command they sent.
	 */
	protected List<String> keysUnderPrefix() {
		return RedisConnections.keys(this.redis, this.prefix);
	}

	@BeforeEach
	void prepare() {
		this.prefix = RedisConnections.uniquePrefix();
		this.redis = new StringRedisTemplate(connectionFactory());
		this.redis.afterPropertiesSet();
	}

	@AfterEach
	void stopServices() {
		this.threads.shutdownNow();
		this.services.forEach(RedisLockService::stop);
	}

	protected RedisLockService newService() {
		return newService((service) -> {
		});
	}

	protected RedisLockService newService(Consumer<RedisLockService> settings) {
		RedisLockService service = RedisConnections.lockService(connectionFactory(), this.prefix, settings);
		this.services.add(service);
		return service;
	}

	protected String lockKey(String key) {
		return this.prefix + "{" + key + "}";
	}

	@Test
	void aHeartbeatIntervalOfAThirdOfTheLeaseOrMoreStopsTheServiceFromStarting() {
		assertThatThrownBy(() -> newService((service) -> {
			service.setLeaseTime(Duration.ofSeconds(3));
			service.setHeartbeatInterval(Duration.ofSeconds(1));
		})).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("lockstep.heartbeat-interval")
			.hasMessageContaining("lockstep.lock.lease-time");
	}

	@Test
	void aKeyLongerThan1024BytesIsRefusedWithAnErrorNamingItAndNothingIsWritten() {
		RedisLockService service = newService();
		String key = "tenant-" + "x".repeat(1100);
		assertThatThrownBy(() -> service.acquire(key, Duration.ZERO)).isInstanceOf(LockKeyException.class)
			.hasMessageContaining("tenant-xxx")
			.hasMessageContaining("1107 bytes");
		assertThat(keysUnderPrefix()).isEmpty();
		try (LockHandle longest = service.acquire("y".repeat(1024), Duration.ZERO)) {
			assertThat(longest.isHeld()).isTrue();
		}
	}

	@Test
	void stoppingKeepsRenewingHeldLocksWhileTheirHoldersFinishThenReportsTheRestLost() throws Exception {
		List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
		RedisLockService service = newService((settings) -> {
			settings.setLeaseTime(Duration.ofSeconds(1));
			settings.setHeartbeatInterval(Duration.ofMillis(100));
			settings.setShutdownTimeout(Duration.ofSeconds(3));
			settings.setListener(new LockListener() {
				@Override
				public void lost(LockLostEvent event) {
					lost.add(event);
				}
			});
		});
		LockHandle hanging = service.acquire("hanging", Duration.ZERO);
		LockHandle finishing = service.acquire("finishing", Duration.ZERO);
		Future<?> stopping = this.threads.submit((Runnable) service::stop);
		// two leases pass while the service stops: the watchdog still renews both
		Thread.sleep(2_000);
		assertThat(stopping).isNotDone();
		assertThat(finishing.isHeld()).isTrue();
		assertThat(this.redis.hasKey(lockKey("finishing"))).isTrue();
		finishing.close();
		stopping.get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(5)).until(() -> lost.size() == 1);
		assertThat(lost.get(0).key()).isEqualTo("hanging");
		assertThat(lost.get(0).reason()).contains("stopped while it was still held");
		assertThat(this.redis.hasKey(lockKey("finishing"))).isFalse();
		hanging.close();
	}

	@Test
	void acquisitionSetsOwnerAndServerSideExpiryInOneStep() {
		RedisLockService service = newService();
		try (LockHandle handle = service.tryAcquire("orders", Duration.ZERO, Duration.ofSeconds(5)).orElseThrow()) {
			Long ttl = this.redis.getExpire(lockKey("orders"), TimeUnit.MILLISECONDS);
			assertThat(ttl).isBetween(1L, 5000L);
			assertThat(this.redis.opsForValue().get(lockKey("orders")))
				.startsWith(service.getInstanceId() + ":")
				.endsWith(":" + handle.fencingToken());
		}
		assertThat(keysUnderPrefix()).isEmpty();
	}

	@Test
	void aLockWithALeaseFreesItselfOnTheServerWhenTheHolderNeverReleases() {
		RedisLockService deadHolder = newService();
		RedisLockService other = newService();
		LockHandle abandoned = deadHolder.tryAcquire("report", Duration.ZERO, Duration.ofSeconds(1)).orElseThrow();
		assertThat(other.tryAcquire("report", Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
		try (LockHandle taken = other.acquire("report", Duration.ofSeconds(10))) {
			assertThat(taken.fencingToken()).isGreaterThan(abandoned.fencingToken());
			assertThat(abandoned.isHeld()).isFalse();
		}
	}

	@Test
	void aLateReleaseNeverDeletesTheNextHoldersLock() {
		RedisLockService slow = newService();
		RedisLockService next = newService();
		LockHandle expired = slow.tryAcquire("invoice", Duration.ZERO, Duration.ofSeconds(1)).orElseThrow();
		LockHandle current = next.acquire("invoice", Duration.ofSeconds(10));
		String currentValue = this.redis.opsForValue().get(lockKey("invoice"));

		expired.close();

		assertThat(this.redis.opsForValue().get(lockKey("invoice"))).isEqualTo(currentValue);
		assertThat(current.isHeld()).isTrue();
		assertThat(slow.tryAcquire("invoice", Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
		current.close();
		assertThat(this.redis.hasKey(lockKey("invoice"))).isFalse();
	}

	@Test
	void reentrantPerThreadAndFreedByTheOutermostRelease() throws Exception {
		RedisLockService service = newService();
		LockHandle outer = service.acquire("tenant-7", Duration.ZERO);
		LockHandle inner = service.acquire("tenant-7", Duration.ZERO);
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		assertThat(LockContext.current()).contains(inner);

		inner.close();
		assertThat(outer.isHeld()).isTrue();
		assertThat(this.threads.submit(() -> service.tryAcquire("tenant-7", Duration.ZERO, Duration.ofSeconds(5)).isPresent())
			.get(10, TimeUnit.SECONDS)).isFalse();

		outer.close();
		assertThat(outer.isHeld()).isFalse();
		assertThat(LockContext.current()).isEmpty();
		assertThat(this.threads.submit(() -> {
			try (LockHandle handle = service.acquire("tenant-7", Duration.ZERO)) {
				return handle.isHeld();
			}
		}).get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void theWatchdogKeepsALockWhoseWorkOutlivesTheLease() throws Exception {
		RedisLockService holder = newService((service) -> {
			service.setLeaseTime(Duration.ofSeconds(1));
			service.setHeartbeatInterval(Duration.ofMillis(100));
		});
		RedisLockService other = newService();
		try (LockHandle handle = holder.acquire("long-job", Duration.ZERO)) {
			Thread.sleep(3000);
			assertThat(handle.isHeld()).isTrue();
			assertThat(this.redis.getExpire(lockKey("long-job"), TimeUnit.MILLISECONDS)).isBetween(1L, 1000L);
			assertThat(other.tryAcquire("long-job", Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
		}
		assertThat(this.redis.hasKey(lockKey("long-job"))).isFalse();
	}

	@Test
	void aLockFoundGoneIsReportedAndItsReleaseTouchesNothing() {
		List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
		RedisLockService holder = newService((service) -> {
			service.setLeaseTime(Duration.ofSeconds(1));
			service.setHeartbeatInterval(Duration.ofMillis(100));
			service.setListener(new LockListener() {
				@Override
				public void lost(LockLostEvent event) {
					lost.add(event);
				}
			});
		});
		RedisLockService other = newService();
		LockHandle handle = holder.acquire("payments", Duration.ZERO);
		this.redis.delete(lockKey("payments"));

		await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
		await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
		assertThat(lost).singleElement().satisfies((event) -> {
			assertThat(event.key()).isEqualTo("payments");
			assertThat(event.fencingToken()).isEqualTo(handle.fencingToken());
		});

		try (LockHandle taken = other.acquire("payments", Duration.ofSeconds(5))) {
			handle.close();
			assertThat(taken.isHeld()).isTrue();
			assertThat(this.redis.opsForValue().get(lockKey("payments"))).startsWith(other.getInstanceId() + ":");
		}
	}

	@Test
	void fencingTokensIncreaseAcrossReleaseExpiryAndHandOff() throws Exception {
		RedisLockService first = newService();
		RedisLockService second = newService();
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			RedisLockService service = (i % 2 == 0) ? first : second;
			try (LockHandle handle = service.acquire("ledger", Duration.ofSeconds(5))) {
				tokens.add(handle.fencingToken());
			}
		}
		LockHandle expiring = first.tryAcquire("ledger", Duration.ZERO, Duration.ofSeconds(1)).orElseThrow();
		tokens.add(expiring.fencingToken());
		try (LockHandle afterExpiry = second.acquire("ledger", Duration.ofSeconds(10))) {
			tokens.add(afterExpiry.fencingToken());
			Future<Long> handedOver = this.threads.submit(() -> {
				try (LockHandle handle = first.acquire("ledger", Duration.ofSeconds(10))) {
					return handle.fencingToken();
				}
			});
			awaitQueueLength("ledger", 1);
			afterExpiry.close();
			tokens.add(handedOver.get(10, TimeUnit.SECONDS));
		}
		List<Long> sorted = new ArrayList<>(tokens);
		Collections.sort(sorted);
		assertThat(tokens).isEqualTo(sorted).doesNotHaveDuplicates();
	}

	@Test
	void waitersAreServedInTheOrderTheyQueued() throws Exception {
		RedisLockService holder = newService();
		List<RedisLockService> instances = List.of(newService(), newService(), newService());
		List<String> order = new CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		LockHandle held = holder.acquire("import:tenant-1", Duration.ZERO);
		for (int i = 0; i < 6; i++) {
			String name = "waiter-" + i;
			RedisLockService service = instances.get(i % instances.size());
			waiters.add(this.threads.submit(() -> service.runLocked("import:tenant-1", Duration.ofSeconds(30), () -> order.add(name))));
			awaitQueueLength("import:tenant-1", i + 1);
		}
		held.close();
		for (Future<?> waiter : waiters) {
			waiter.get(30, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly("waiter-0", "waiter-1", "waiter-2", "waiter-3", "waiter-4", "waiter-5");
		assertThat(keysUnderPrefix()).isEmpty();
	}

	@Test
	void aReleaseWakesTheWaiterWithoutWaitingForAPoll() throws Exception {
		// With a 30s heartbeat only the wake-up message can hand the lock over within the bound.
		Consumer<RedisLockService> slowHeartbeat = (service) -> {
			service.setHeartbeatInterval(Duration.ofSeconds(30));
			service.setLeaseTime(Duration.ofSeconds(120));
		};
		RedisLockService holder = newService(slowHeartbeat);
		RedisLockService waiter = newService(slowHeartbeat);
		LockHandle held = holder.acquire("wake", Duration.ZERO);
		Future<Long> waiting = this.threads.submit(() -> {
			try (LockHandle handle = waiter.acquire("wake", Duration.ofSeconds(60))) {
				return handle.fencingToken();
			}
		});
		awaitQueueLength("wake", 1);
		held.close();
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo(held.fencingToken() + 1);
	}

	@Test
	void aWaiterThatTimesOutLeavesTheQueueAndNamesKeyAndWait() {
		RedisLockService holder = newService();
		RedisLockService waiter = newService();
		try (LockHandle held = holder.acquire("busy", Duration.ZERO)) {
			assertThatThrownBy(() -> waiter.acquire("busy", Duration.ofMillis(300)))
				.isInstanceOf(LockNotAcquiredException.class)
				.hasMessageContaining("'busy'")
				.hasMessageContaining("300ms");
			assertThat(this.redis.hasKey(lockKey("busy") + ":queue")).isFalse();
		}
		assertThat(keysUnderPrefix()).isEmpty();
	}

	@Test
	void aWaitingThreadCanBeInterruptedAndLeavesTheQueue() throws Exception {
		RedisLockService holder = newService();
		RedisLockService waiter = newService();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicReference<Boolean> interruptFlag = new AtomicReference<>();
		try (LockHandle held = holder.acquire("interruptible", Duration.ZERO)) {
			Thread thread = new Thread(() -> {
				try {
					waiter.acquire("interruptible", Duration.ofSeconds(60)).close();
				}
				catch (RuntimeException ex) {
					failure.set(ex);
					interruptFlag.set(Thread.currentThread().isInterrupted());
				}
			});
			thread.start();
			awaitQueueLength("interruptible", 1);
			thread.interrupt();
			thread.join(10_000);
			assertThat(thread.isAlive()).isFalse();
			assertThat(failure.get()).isInstanceOf(LockNotAcquiredException.class).hasMessageContaining("Interrupted");
			assertThat(interruptFlag.get()).isTrue();
			await().atMost(Duration.ofSeconds(5)).until(() -> !this.redis.hasKey(lockKey("interruptible") + ":queue"));
		}
	}

	@Test
	void aZeroWaitIsASingleAttemptThatNeverQueues() {
		RedisLockService holder = newService();
		RedisLockService other = newService();
		try (LockHandle held = holder.acquire("once", Duration.ZERO)) {
			assertThat(other.tryAcquire("once", Duration.ZERO, Duration.ofSeconds(1))).isEmpty();
			assertThatThrownBy(() -> other.acquire("once", Duration.ZERO)).isInstanceOf(LockNotAcquiredException.class);
			assertThat(this.redis.hasKey(lockKey("once") + ":queue")).isFalse();
		}
	}

	@Test
	void aStoppedHoldersLockFreesWithinItsLease() throws Exception {
		RedisLockService dying = newService((service) -> service.setLeaseTime(Duration.ofSeconds(2)));
		RedisLockService survivor = newService((service) -> service.setHeartbeatInterval(Duration.ofMillis(100)));
		dying.acquire("singleton", Duration.ZERO);
		dying.stop();
		long start = System.nanoTime();
		try (LockHandle taken = survivor.acquire("singleton", Duration.ofSeconds(30))) {
			assertThat(taken.isHeld()).isTrue();
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2 + 5));
	}

	@Test
	void mutualExclusionHoldsAcrossInstancesAndThreads() throws Exception {
		List<RedisLockService> instances = List.of(newService(), newService(), newService(), newService());
		String[] keys = { "k0", "k1", "k2" };
		AtomicInteger[] inside = { new AtomicInteger(), new AtomicInteger(), new AtomicInteger() };
		int[] unguardedCounts = new int[keys.length];
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger sections = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 16; t++) {
			RedisLockService service = instances.get(t % instances.size());
			int seed = t;
			workers.add(this.threads.submit(() -> {
				start.await();
				for (int i = 0; i < 60; i++) {
					int k = (seed + i) % keys.length;
					service.runLocked(keys[k], Duration.ofSeconds(60), () -> {
						if (inside[k].incrementAndGet() != 1) {
							overlaps.incrementAndGet();
						}
						// a read-modify-write that loses updates if two threads are ever inside at once
						int seen = unguardedCounts[k];
						LockSupport.parkNanos(20_000);
						unguardedCounts[k] = seen + 1;
						sections.incrementAndGet();
						inside[k].decrementAndGet();
					});
				}
				return null;
			}));
		}
		start.countDown();
		for (Future<?> worker : workers) {
			worker.get(90, TimeUnit.SECONDS);
		}
		assertThat(overlaps).hasValue(0);
		assertThat(sections).hasValue(16 * 60);
		assertThat(unguardedCounts[0] + unguardedCounts[1] + unguardedCounts[2]).isEqualTo(16 * 60);
		assertThat(keysUnderPrefix()).isEmpty();
	}

	protected void awaitQueueLength(String key, long length) {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.opsForList().size(lockKey(key) + ":queue") == length);
	}

}
