package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An acquire whose reply a cut connection lost is sent again by Lettuce after the reconnect, and
 * its reply is the one the caller hears. When the caller's queue entry was handed the lock (a
 * permit) in between, for the short grant lease, the call sent again answers with the grant's
 * token, and the caller counts the whole lease from when it sent the call: the script makes the
 * lock (the permit) last that long, so nobody else takes it while the caller believes it holds it.
 * Before, Redis let the grant lease run out (2.5 s) and a second caller in beside the first.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplayedAcquireTests {

	/** Longer than the grant lease (five heartbeats of 500 ms) the hand-over gave the waiter. */
	private static final Duration WAIT = Duration.ofSeconds(4);

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisLockService> services = new ArrayList<>();

	private final List<FaultProxy> proxies = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@AfterEach
	void close() {
		this.services.forEach(RedisLockService::stop);
		this.proxies.forEach(FaultProxy::close);
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	private RedisLockService service(FaultProxy proxy) {
		LettuceConnectionFactory factory = (proxy != null) ? RedisConnections.standalone(proxy.host(), proxy.port())
				: RedisConnections.standalone();
		this.factories.add(factory);
		// the defaults: 30 s lease, 500 ms heartbeat (grant lease 2.5 s), 5 s command timeout
		RedisLockService service = RedisConnections.lockService(factory, this.redis.prefix(), (settings) -> {
		});
		this.services.add(service);
		return service;
	}

	@Test
	void aLockHandedOverToAnAcquireSentAgainStaysTheCallersForItsWholeLease() throws Exception {
		run("{k}:queue", (service) -> service.acquire("k", Duration.ofSeconds(20)),
				(service) -> service.tryAcquire("k", Duration.ofSeconds(10), Duration.ofSeconds(30)).orElseThrow(),
				(service) -> service.tryAcquire("k", WAIT, Duration.ofSeconds(30)), 1);
	}

	@Test
	void aReactiveAcquireSentAgainToo() throws Exception {
		run("{k}:queue", (service) -> new RedisReactiveLockService(service).acquire("k", Duration.ofSeconds(20)).block(),
				(service) -> service.tryAcquire("k", Duration.ofSeconds(10), Duration.ofSeconds(30)).orElseThrow(),
				(service) -> service.tryAcquire("k", WAIT, Duration.ofSeconds(30)), 1);
	}

	@Test
	void aPermitAcquireSentAgainToo() throws Exception {
		run("permits:{p}:queue", (service) -> service.acquirePermit("p", 2, Duration.ofSeconds(20)),
				(service) -> service.acquirePermit("p", 2, Duration.ofSeconds(10)),
				(service) -> service.tryAcquirePermit("p", 2, WAIT, Duration.ofSeconds(30)), 2);
	}

	private void run(String queueKey, Function<RedisLockService, LockHandle> waiting, Function<RedisLockService, LockHandle> taking,
			Function<RedisLockService, Optional<LockHandle>> tryingToTake, int holdersBefore) throws Exception {
		FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
		this.proxies.add(proxy);
		RedisLockService cutOff = service(proxy);
		RedisLockService healthy = service(null);
		List<LockHandle> before = new ArrayList<>();
		for (int i = 0; i < holdersBefore; i++) {
			before.add(taking.apply(healthy));
		}
		String queue = this.redis.prefix() + queueKey;
		// the cut-off instance's replies come late: its acquire runs in Redis, its reply is still on the way
		proxy.latency(Duration.ZERO, Duration.ofMillis(3000));
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> waiting.apply(cutOff));
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(2))
			.until(() -> this.redis.template().opsForList().size(queue) == 1);
		long queuedAt = System.nanoTime();
		// a holder releases: Redis hands the lock (permit) to the queued waiter with the 2.5 s grant lease
		before.get(0).close();
		await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(2))
			.until(() -> this.redis.template().opsForList().size(queue) == 0);
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - queuedAt)).as("still before the late reply").isLessThan(2500);
		// the connection drops before the acquire's reply arrives; Lettuce re-sends the acquire after reconnecting
		proxy.cutAll();
		proxy.heal();
		LockHandle first = waiter.get(15, TimeUnit.SECONDS);
		assertThat(first.isHeld()).isTrue();
		// past the grant lease (2.5 s): the lock (the last permit) is still the first caller's
		assertThat(tryingToTake.apply(healthy)).as("taken while the first caller holds it").isEmpty();
		assertThat(first.isHeld()).isTrue();
		first.close();
		assertThat(tryingToTake.apply(healthy)).as("taken once the first caller released it").isPresent();
	}

}
