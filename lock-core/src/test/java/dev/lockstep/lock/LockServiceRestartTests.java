package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.LockHandle;
import dev.lockstep.LockUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A lock service stopped and started again (an application context stopped and started, a
 * checkpoint restored): what its earlier start held or waited for never mixes with what the new
 * start takes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockServiceRestartTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisLockService> services = new ArrayList<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.services.forEach(RedisLockService::stop);
	}

	private RedisLockService service(Consumer<RedisLockService> settings) {
		RedisLockService service = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), settings);
		this.services.add(service);
		return service;
	}

	private String holderValue(String key) {
		return this.redis.template().opsForValue().get(LockKeys.of(this.redis.prefix(), key).lock());
	}

	@Test
	void aServiceStartedAgainDoesNotTakeALockItsEarlierStartStillHolds() {
		RedisLockService service = service((settings) -> settings.setShutdownTimeout(Duration.ofMillis(100)));
		LockHandle old = service.acquire("k", Duration.ZERO);
		String oldValue = holderValue("k");
		service.stop();
		service.start();
		// the old holder's lease still runs in Redis: the new start must see it as someone else's
		Optional<LockHandle> taken = service.tryAcquire("k", Duration.ZERO, Duration.ofSeconds(30));
		assertThat(taken).as("a single attempt of the new start while the old start's holder still holds").isEmpty();
		assertThat(holderValue("k")).isEqualTo(oldValue);
		// the old holder's late close frees nothing the new start could have taken
		old.close();
		LockHandle next = service.acquire("k", Duration.ofSeconds(40));
		assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());
		next.close();
	}

	@Test
	void ownerIdsOfAServiceStartedAgainAreNewOnes() {
		RedisLockService service = service((settings) -> {
		});
		LockHandle first = service.acquire("a", Duration.ZERO);
		String firstOwner = holderValue("a").substring(0, holderValue("a").lastIndexOf(':'));
		first.close();
		service.stop();
		service.start();
		LockHandle second = service.acquire("a", Duration.ZERO);
		String secondOwner = holderValue("a").substring(0, holderValue("a").lastIndexOf(':'));
		second.close();
		assertThat(secondOwner).isNotEqualTo(firstOwner);
		String instance = service.getInstanceId();
		assertThat(firstOwner).startsWith(instance + ":");
		assertThat(secondOwner).startsWith(instance + ":");
		// the part after the instance differs in its start part, not only its sequence
		assertThat(secondOwner.substring(instance.length() + 1, instance.length() + 5))
			.isNotEqualTo(firstOwner.substring(instance.length() + 1, instance.length() + 5));
	}

	@Test
	void aThreadWaitingWhenTheServiceStopsFailsAtOnceAndLeavesTheQueue() throws Exception {
		RedisLockService holder = service((settings) -> {
		});
		RedisLockService waiterService = service((settings) -> settings.setShutdownTimeout(Duration.ofMillis(100)));
		LockHandle held = holder.acquire("w", Duration.ZERO);
		Future<LockHandle> waiting = this.threads.submit(() -> waiterService.acquire("w", Duration.ofSeconds(30)));
		LockKeys keys = LockKeys.of(this.redis.prefix(), "w");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.template().opsForList().size(keys.queue()) == 1);
		long stopping = System.nanoTime();
		waiterService.stop();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(LockUnavailableException.class)
			.withMessageContaining("stopped");
		assertThat(Duration.ofNanos(System.nanoTime() - stopping)).isLessThan(Duration.ofSeconds(5));
		assertThat(this.redis.template().opsForList().size(keys.queue())).as("the stopped waiter's queue entry").isZero();
		// the lock goes on to a new waiter of the started service, not to the stopped one's entry
		waiterService.start();
		Future<LockHandle> next = this.threads.submit(() -> waiterService.acquire("w", Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.template().opsForList().size(keys.queue()) == 1);
		held.close();
		LockHandle handle = next.get(10, TimeUnit.SECONDS);
		assertThat(handle.isHeld()).isTrue();
		assertThat(holderValue("w")).endsWith(":" + handle.fencingToken());
		handle.close();
	}

}
