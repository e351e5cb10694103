package dev.lockstep.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.LockSnapshot;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.Await;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** ShedLock's provider contract, kept by {@link LockstepLockProvider}, on a real Redis: two instances. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockstepLockProviderTests {

	private final String prefix = "s" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private LettuceConnectionFactory factory;

	private StringRedisTemplate redis;

	private RedisLockService serviceA;

	private RedisLockService serviceB;

	private LockstepLockProvider instanceA;

	private LockstepLockProvider instanceB;

	@BeforeEach
	void start() {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(endpoint.host(), endpoint.port()));
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.redis = new StringRedisTemplate(this.factory);
		this.serviceA = service("a");
		this.serviceB = service("b");
		this.instanceA = new LockstepLockProvider(this.serviceA);
		this.instanceB = new LockstepLockProvider(this.serviceB);
	}

	private RedisLockService service(String instanceId) {
		RedisLockService service = new RedisLockService(this.factory);
		service.setKeyPrefix(this.prefix);
		service.setInstanceId(instanceId);
		service.setShutdownTimeout(Duration.ZERO);
		service.start();
		return service;
	}

	@AfterEach
	void stop() {
		this.serviceA.stop();
		this.serviceB.stop();
		this.redis.delete(this.redis.keys(this.prefix + "*"));
		this.factory.destroy();
	}

	@Test
	void aLockHeldAnywhereIsNotGivenAgain() {
		SimpleLock lock = this.instanceA.lock(config("report", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
		assertThat(this.instanceB.lock(config("report", Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
		assertThat(this.instanceA.lock(config("report", Duration.ofSeconds(30), Duration.ZERO)))
			.as("not reentrant, also on the thread holding it").isEmpty();
		assertThat(this.instanceB.lock(config("other", Duration.ofSeconds(30), Duration.ZERO))).isPresent();
		lock.unlock();
		assertThat(this.instanceB.lock(config("report", Duration.ofSeconds(30), Duration.ZERO))).isPresent();
	}

	@Test
	void theLeaseIsLockAtMostForOnTheRedisServer() {
		this.instanceA.lock(config("report", Duration.ofSeconds(20), Duration.ZERO)).orElseThrow();
		assertThat(pttl("report")).isBetween(15_000L, 20_000L);
		this.instanceA.lock(config("short", Duration.ofMillis(400), Duration.ZERO)).orElseThrow();
		assertThat(this.instanceB.lock(config("short", Duration.ofSeconds(20), Duration.ZERO))).isEmpty();
		await(() -> this.instanceB.lock(config("short", Duration.ofSeconds(20), Duration.ZERO)).isPresent());
	}

	@Test
	void afterUnlockTheLockIsKeptUntilLockAtLeastForHasPassed() {
		long taken = System.nanoTime();
		SimpleLock lock = this.instanceA.lock(config("report", Duration.ofSeconds(30), Duration.ofMillis(1500)))
			.orElseThrow();
		lock.unlock();
		assertThat(pttl("report")).as("lease shortened to what remains of lockAtLeastFor").isBetween(1L, 1500L);
		assertThat(this.instanceB.lock(config("report", Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
		assertThat(this.instanceA.lock(config("report", Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
		await(() -> this.instanceB.lock(config("report", Duration.ofSeconds(30), Duration.ZERO)).isPresent());
		assertThat(Duration.ofNanos(System.nanoTime() - taken)).isGreaterThanOrEqualTo(Duration.ofMillis(1400));
	}

	@Test
	void anUnlockAfterLockAtLeastForReleasesAtOnce() throws InterruptedException {
		SimpleLock lock = this.instanceA.lock(config("report", Duration.ofSeconds(30), Duration.ofMillis(200)))
			.orElseThrow();
		Thread.sleep(300);
		lock.unlock();
		assertThat(this.instanceB.lock(config("report", Duration.ofSeconds(30), Duration.ZERO))).isPresent();
	}

	@Test
	void extendReturnsANewLockWithTheNewLeaseAndTheOldOneIsDead() throws InterruptedException {
		SimpleLock first = this.instanceA.lock(config("report", Duration.ofMillis(800), Duration.ZERO)).orElseThrow();
		SimpleLock extended = first.extend(Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
		assertThat(extended).isNotSameAs(first);
		assertThat(pttl("report")).isBetween(15_000L, 20_000L);
		assertThatIllegalStateException().isThrownBy(first::unlock).withMessageContaining("report");
		assertThatIllegalStateException().isThrownBy(() -> first.extend(Duration.ofSeconds(5), Duration.ZERO));
		Thread.sleep(1200);
		assertThat(this.instanceB.lock(config("report", Duration.ofSeconds(30), Duration.ZERO)))
			.as("still held after the first lease would have ended").isEmpty();
		extended.unlock();
		assertThatIllegalStateException().isThrownBy(extended::unlock);
		assertThat(this.instanceB.lock(config("report", Duration.ofSeconds(30), Duration.ZERO))).isPresent();
	}

	@Test
	void extendAfterTheLeaseRanOutAndAnotherTookTheLockIsEmptyAndChangesNothing() {
		SimpleLock late = this.instanceA.lock(config("report", Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
		SimpleLock taker = takeOverFromB("report");
		assertThat(late.extend(Duration.ofSeconds(60), Duration.ZERO)).isEmpty();
		assertHeldByB("report", 20_000L);
		taker.unlock();
	}

	@Test
	void aLateUnlockAfterAnotherTookTheLockChangesNothing() {
		SimpleLock late = this.instanceA.lock(config("report", Duration.ofMillis(300), Duration.ofMillis(300)))
			.orElseThrow();
		SimpleLock taker = takeOverFromB("report");
		late.unlock();
		assertHeldByB("report", 20_000L);
		assertThat(this.instanceA.lock(config("report", Duration.ofSeconds(30), Duration.ZERO))).isEmpty();
		taker.unlock();
		assertThat(this.instanceA.lock(config("report", Duration.ofSeconds(30), Duration.ZERO))).isPresent();
	}

	@Test
	void eachAcquisitionHasAHigherFencingToken() {
		LockstepSimpleLock first = (LockstepSimpleLock) this.instanceA
			.lock(config("report", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
		first.unlock();
		LockstepSimpleLock second = (LockstepSimpleLock) this.instanceB
			.lock(config("report", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		second.unlock();
	}

	@Test
	void aTaskIsNotRunWhileRedisDoesNotAnswerAndTheErrorNamesTheLock() throws Exception {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		try (FaultProxy proxy = FaultProxy.start(endpoint.host(), endpoint.port())) {
			LettuceConnectionFactory throughProxy = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()));
			throughProxy.afterPropertiesSet();
			throughProxy.start();
			RedisLockService service = new RedisLockService(throughProxy);
			service.setKeyPrefix(this.prefix);
			service.setInstanceId("c");
			service.setCommandTimeout(Duration.ofMillis(300));
			service.setShutdownTimeout(Duration.ZERO);
			service.start();
			try {
				DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(new LockstepLockProvider(service));
				AtomicBoolean ran = new AtomicBoolean();
				proxy.stall();
				assertThatExceptionOfType(LockUnavailableException.class)
					.isThrownBy(() -> executor.executeWithLock((Runnable) () -> ran.set(true),
							config("report", Duration.ofSeconds(2), Duration.ZERO)))
					.withMessageContaining("shedlock:report");
				assertThat(ran).as("the task ran without its lock").isFalse();
				proxy.heal();
				await(() -> this.instanceB.lock(config("report", Duration.ofSeconds(30), Duration.ZERO)).isPresent());
			}
			finally {
				service.stop();
				throughProxy.destroy();
			}
		}
	}

	/** Waits for instance A's lock to run out on Redis, then takes it from B for 30s. */
	private SimpleLock takeOverFromB(String name) {
		AtomicReference<Optional<SimpleLock>> taken = new AtomicReference<>(Optional.empty());
		await(() -> {
			taken.set(this.instanceB.lock(config(name, Duration.ofSeconds(30), Duration.ZERO)));
			return taken.get().isPresent();
		});
		return taken.get().orElseThrow();
	}

	private void assertHeldByB(String name, long minimumLeaseLeftMillis) {
		LockSnapshot.KeyState state = this.serviceB.keyState("shedlock:" + name);
		assertThat(state.holderInstance()).isEqualTo(this.serviceB.getInstanceId());
		assertThat(pttl(name)).isGreaterThan(minimumLeaseLeftMillis);
	}

	private long pttl(String name) {
		return this.redis.getExpire(this.prefix + "{shedlock:" + name + "}", TimeUnit.MILLISECONDS);
	}

	private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(Instant.now(), name, lockAtMostFor, lockAtLeastFor);
	}

	/** Polls {@code condition} every 20ms; fails after 10s. */
	private static void await(BooleanSupplier condition) {
		Await.until("the lock's state as expected", Duration.ofSeconds(10), condition);
	}

}
