package dev.lockstep.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.support.locks.DistributedLock;

import dev.lockstep.LockHandle;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The {@link Lock} contract of {@link LockstepLockRegistry}'s locks, on a real Redis: two instances. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockstepLockRegistryTests {

	private final String prefix = "i" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private LettuceConnectionFactory factory;

	private StringRedisTemplate redis;

	private RedisLockService serviceA;

	private RedisLockService serviceB;

	private LockstepLockRegistry instanceA;

	private LockstepLockRegistry instanceB;

	@BeforeEach
	void start() {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		this.factory = connection(endpoint.host(), endpoint.port());
		this.redis = new StringRedisTemplate(this.factory);
		this.serviceA = service("a");
		this.serviceB = service("b");
		this.instanceA = new LockstepLockRegistry(this.serviceA);
		this.instanceB = new LockstepLockRegistry(this.serviceB);
	}

	private static LettuceConnectionFactory connection(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private RedisLockService service(String instanceId) {
		return service(this.factory, instanceId, null);
	}

	/** A started lock service on {@code factory}: 3 s leases, the default command timeout unless one is given. */
	private RedisLockService service(LettuceConnectionFactory factory, String instanceId, @Nullable Duration commandTimeout) {
		RedisLockService service = new RedisLockService(factory);
		service.setKeyPrefix(this.prefix);
		service.setInstanceId(instanceId);
		service.setLeaseTime(Duration.ofSeconds(3));
		if (commandTimeout != null) {
			service.setCommandTimeout(commandTimeout);
		}
		service.setShutdownTimeout(Duration.ZERO);
		service.start();
		return service;
	}

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.serviceA.stop();
		this.serviceB.stop();
		this.redis.delete(this.redis.keys(this.prefix + "*"));
		this.factory.destroy();
	}

	@Test
	void obtainGivesOneLockPerKey() {
		assertThat(this.instanceA.obtain("orders")).isSameAs(this.instanceA.obtain("orders"))
			.isNotSameAs(this.instanceA.obtain("invoices"));
	}

	@Test
	void aThreadReentersItsLockAndOnlyItsLastUnlockReleasesIt() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		lock.lock();
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
		lock.unlock();
		assertThat(onOtherThread(() -> this.instanceB.obtain("orders").tryLock())).isFalse();
		assertThat(onOtherThread(() -> lock.tryLock())).as("another thread of the same instance").isFalse();
		lock.unlock();
		assertThat(onOtherThread(() -> tryAndUnlock(this.instanceB.obtain("orders")))).isTrue();
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockThrowsAndChangesNothing() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		lock.lock();
		Future<?> stranger = this.threads.submit(lock::unlock);
		assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
			.isThrownBy(() -> stranger.get(10, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(IllegalMonitorStateException.class)
			.withMessageContaining("'integration:orders'");
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.as("the same key's lock of another instance")
			.isThrownBy(() -> onOtherThreadThrowing(() -> this.instanceB.obtain("orders").unlock()));
		assertThat(onOtherThread(() -> this.instanceB.obtain("orders").tryLock())).isFalse();
		lock.unlock();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
	}

	@Test
	void tryLockGivesUpAfterItsTimeout() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		lock.lock();
		for (Lock contender : new Lock[] { this.instanceB.obtain("orders"), lock }) {
			long start = System.nanoTime();
			assertThat(onOtherThread(() -> contender.tryLock(400, TimeUnit.MILLISECONDS))).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(350), Duration.ofSeconds(8));
		}
		lock.unlock();
	}

	@Test
	void aWaitingLockIsTakenWhenTheHolderUnlocks() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		lock.lock();
		Future<Boolean> waiter = this.threads.submit(() -> {
			Lock other = this.instanceB.obtain("orders");
			other.lock();
			other.unlock();
			return true;
		});
		Thread.sleep(300);
		assertThat(waiter.isDone()).isFalse();
		lock.unlock();
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
	}

	/**
	 * {@code lock()} waits in the lock's queue in Redis for as long as it takes, keeping its place:
	 * it used to give its place up after 30 s and queue again, behind whoever came meanwhile.
	 */
	@Test
	@Timeout(value = 90, unit = TimeUnit.SECONDS)
	void lockKeepsItsPlaceInTheQueueHoweverLongItWaits() throws Exception {
		List<String> order = new CopyOnWriteArrayList<>();
		RedisLockService serviceC = service("c");
		try (LockHandle holder = this.serviceA.acquire(LockstepLockRegistry.DEFAULT_KEY_PREFIX + "reports", Duration.ZERO)) {
			Future<?> first = this.threads.submit(() -> {
				Lock lock = this.instanceB.obtain("reports");
				lock.lock();
				order.add("lock()");
				lock.unlock();
			});
			awaitWaiters(1);
			Future<?> later = this.threads.submit(() -> {
				try (LockHandle handle = serviceC.acquire(LockstepLockRegistry.DEFAULT_KEY_PREFIX + "reports", Duration.ofSeconds(80))) {
					order.add("later");
				}
			});
			awaitWaiters(2);
			Thread.sleep(32_000);
			assertThat(first.isDone()).isFalse();
			holder.close();
			first.get(20, TimeUnit.SECONDS);
			later.get(20, TimeUnit.SECONDS);
		}
		finally {
			serviceC.stop();
		}
		assertThat(order).containsExactly("lock()", "later");
	}

	/**
	 * An outage while {@code lock()} waits in the queue does not end it: the holder releases while
	 * the waiter's instance hears nothing from Redis, and the waiter takes the lock once Redis
	 * answers again.
	 */
	@Test
	void lockWaitsThroughAnOutageAndTakesTheLockAfterIt() throws Exception {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		try (FaultProxy proxy = FaultProxy.start(endpoint.host(), endpoint.port())) {
			LettuceConnectionFactory throughProxy = connection(proxy.host(), proxy.port());
			RedisLockService service = service(throughProxy, "c", Duration.ofMillis(300));
			LockHandle holder = this.serviceA.acquire(LockstepLockRegistry.DEFAULT_KEY_PREFIX + "reports", Duration.ZERO);
			try {
				Lock lock = new LockstepLockRegistry(service).obtain("reports");
				Future<Boolean> waiter = this.threads.submit(() -> {
					lock.lock();
					// held in Redis: another instance cannot take it now
					boolean free = this.threads.submit(() -> tryAndUnlock(this.instanceB.obtain("reports")))
						.get(10, TimeUnit.SECONDS);
					lock.unlock();
					return !free;
				});
				awaitWaiters(1);
				proxy.stall();
				// heartbeats and the hand-over's message go unanswered meanwhile
				Thread.sleep(1500);
				holder.close();
				Thread.sleep(3000);
				assertThat(waiter.isDone()).as("lock() ended during the outage").isFalse();
				proxy.heal();
				assertThat(waiter.get(20, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				holder.close();
				service.stop();
				throughProxy.destroy();
			}
		}
	}

	/** Waits until the queue of the one lock of this test holds {@code count} waiters. */
	private void awaitWaiters(int count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (true) {
			long waiting = this.redis.keys(this.prefix + "*:queue").stream()
				.mapToLong((queue) -> this.redis.opsForList().size(queue))
				.sum();
			if (waiting == count) {
				return;
			}
			assertThat(System.nanoTime() - deadline).as("waiters queued within 20 s, " + waiting + " so far").isNegative();
			Thread.sleep(20);
		}
	}

	@Test
	void lockInterruptiblyThrowsWhenInterruptedWhileWaiting() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		lock.lock();
		for (Lock contender : new Lock[] { this.instanceB.obtain("orders"), lock }) {
			CompletableFuture<Throwable> outcome = new CompletableFuture<>();
			Thread waiter = new Thread(() -> {
				try {
					contender.lockInterruptibly();
					outcome.complete(null);
				}
				catch (Throwable ex) {
					outcome.complete(ex);
				}
			});
			waiter.start();
			Thread.sleep(300);
			assertThat(outcome).isNotDone();
			waiter.interrupt();
			assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
			waiter.join(10_000);
		}
		lock.unlock();
		assertThat(onOtherThread(() -> tryAndUnlock(this.instanceB.obtain("orders"))))
			.as("the interrupted waiter left nothing behind").isTrue();
	}

	@Test
	void anInterruptedThreadDoesNotTakeTheLockInterruptibly() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(InterruptedException.class).isThrownBy(lock::lockInterruptibly);
		}
		finally {
			Thread.interrupted();
		}
		assertThat(onOtherThread(() -> tryAndUnlock(this.instanceB.obtain("orders")))).as("left free").isTrue();
	}

	@Test
	void tryLockWithATimeoutThrowsWhenInterruptedWhileWaiting() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		lock.lock();
		CompletableFuture<Object> outcome = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try {
				outcome.complete(this.instanceB.obtain("orders").tryLock(20, TimeUnit.SECONDS));
			}
			catch (Throwable ex) {
				outcome.complete(ex);
			}
		});
		waiter.start();
		Thread.sleep(300);
		assertThat(outcome).isNotDone();
		waiter.interrupt();
		assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		waiter.join(10_000);
		lock.unlock();
		assertThat(onOtherThread(() -> tryAndUnlock(this.instanceB.obtain("orders"))))
			.as("the interrupted waiter left nothing behind").isTrue();
	}

	@Test
	void lockGoesOnWaitingWhenInterruptedAndKeepsTheInterrupt() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		lock.lock();
		CompletableFuture<Boolean> interruptedWhenTaken = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			Lock other = this.instanceB.obtain("orders");
			other.lock();
			interruptedWhenTaken.complete(Thread.currentThread().isInterrupted());
			other.unlock();
		});
		waiter.start();
		Thread.sleep(300);
		waiter.interrupt();
		Thread.sleep(300);
		assertThat(interruptedWhenTaken).as("still waiting after the interrupt").isNotDone();
		lock.unlock();
		assertThat(interruptedWhenTaken.get(10, TimeUnit.SECONDS)).as("taken, the interrupt kept").isTrue();
		waiter.join(10_000);
		assertThat(waiter.isAlive()).isFalse();
		assertThat(onOtherThread(() -> tryAndUnlock(this.instanceA.obtain("orders"))))
			.as("its unlock, with the interrupt set, released it").isTrue();
	}

	@Test
	void aLockWithATimeToLiveFreesItselfAndItsLateUnlockThrows() throws Exception {
		DistributedLock lock = this.instanceA.obtain("orders");
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(400))).isTrue();
		DistributedLock other = this.instanceB.obtain("orders");
		assertThat(onOtherThread(() -> other.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(10)))).isTrue();
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock)
			.withMessageContaining("'integration:orders'");
		assertThat(pttl("orders")).as("the other holder's lock is untouched").isGreaterThan(5_000L);
	}

	@Test
	void aThreadTryingItsLostLockAgainTakesItAfreshForItsEarlierHoldsToo() throws Exception {
		DistributedLock lock = this.instanceA.obtain("orders");
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
		Thread.sleep(500);
		assertThat(lock.tryLock()).isTrue();
		assertThat(pttl("orders")).as("a new acquisition, renewed by the watchdog").isGreaterThan(1_000L);
		lock.unlock();
		assertThat(onOtherThread(() -> this.instanceB.obtain("orders").tryLock()))
			.as("still held for the earlier hold after the new hold's unlock").isFalse();
		lock.unlock();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(onOtherThread(() -> tryAndUnlock(this.instanceB.obtain("orders")))).isTrue();
	}

	@Test
	void aThreadTryingItsLostLockAgainWhileAnotherHoldsItFailsAndItsEarlierHoldsEnd() throws Exception {
		DistributedLock lock = this.instanceA.obtain("orders");
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
		DistributedLock other = this.instanceB.obtain("orders");
		assertThat(onOtherThread(() -> other.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(10)))).isTrue();
		assertThat(lock.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).as("no hold left").isThrownBy(lock::unlock);
		assertThat(pttl("orders")).as("the other holder's lock is untouched").isGreaterThan(5_000L);
	}

	@Test
	void renewLockSetsANewTimeToLive() throws Exception {
		DistributedLock lock = this.instanceA.obtain("orders");
		lock.lock(Duration.ofMillis(800));
		this.instanceA.renewLock("orders", Duration.ofSeconds(20));
		assertThat(pttl("orders")).isBetween(15_000L, 20_000L);
		Thread.sleep(1000);
		assertThat(onOtherThread(() -> this.instanceB.obtain("orders").tryLock())).isFalse();
		assertThatIllegalStateException().isThrownBy(() -> onOtherThreadThrowing(() -> this.instanceA.renewLock("orders")));
		lock.unlock();
		Lock watched = this.instanceA.obtain("watched");
		watched.lock();
		this.instanceA.renewLock("watched");
		assertThatIllegalStateException().isThrownBy(() -> this.instanceA.renewLock("watched", Duration.ofSeconds(5)))
			.withMessageContaining("watchdog");
		watched.unlock();
	}

	@Test
	void aLockWithoutATimeToLiveIsRenewedWhileHeld() throws Exception {
		Lock lock = this.instanceA.obtain("orders");
		lock.lock();
		Thread.sleep(4000);
		assertThat(onOtherThread(() -> this.instanceB.obtain("orders").tryLock())).as("held past the 3s lease").isFalse();
		lock.unlock();
	}

	@Test
	void conditionsAreNotSupported() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.instanceA.obtain("orders").newCondition());
	}

	@Test
	void expireUnusedOlderThanForgetsOnlyLocksNotHeld() throws Exception {
		Lock idle = this.instanceA.obtain("idle");
		Lock held = this.instanceA.obtain("held");
		held.lock();
		Thread.sleep(20);
		this.instanceA.expireUnusedOlderThan(0);
		assertThat(this.instanceA.obtain("idle")).isNotSameAs(idle);
		assertThat(this.instanceA.obtain("held")).isSameAs(held);
		held.unlock();
	}

	@Test
	void whileRedisDoesNotAnswerLockingThrowsNamingTheLockAndLeavesItFree() throws Exception {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		try (FaultProxy proxy = FaultProxy.start(endpoint.host(), endpoint.port())) {
			LettuceConnectionFactory throughProxy = connection(proxy.host(), proxy.port());
			RedisLockService service = service(throughProxy, "c", Duration.ofMillis(300));
			try {
				Lock lock = new LockstepLockRegistry(service).obtain("orders");
				proxy.stall();
				assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(lock::tryLock)
					.withMessageContaining("'integration:orders'");
				assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(lock::lock)
					.withMessageContaining("'integration:orders'");
				proxy.heal();
				assertThat(onOtherThread(() -> lock.tryLock(10, TimeUnit.SECONDS))).as("left free on this instance").isTrue();
				assertThat(onOtherThread(() -> this.instanceB.obtain("orders").tryLock())).isFalse();
			}
			finally {
				service.stop();
				throughProxy.destroy();
			}
		}
	}

	private long pttl(String key) {
		return this.redis.getExpire(this.prefix + "{integration:" + key + "}", TimeUnit.MILLISECONDS);
	}

	private static boolean tryAndUnlock(Lock lock) {
		if (!lock.tryLock()) {
			return false;
		}
		lock.unlock();
		return true;
	}

	private <T> T onOtherThread(java.util.concurrent.Callable<T> action) throws Exception {
		return this.threads.submit(action).get(20, TimeUnit.SECONDS);
	}

	private void onOtherThreadThrowing(Runnable action) throws Exception {
		try {
			this.threads.submit(action).get(20, TimeUnit.SECONDS);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw ex;
		}
	}

}
