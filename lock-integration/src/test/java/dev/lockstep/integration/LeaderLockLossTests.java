package dev.lockstep.integration;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.Await;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockRegistryLeaderInitiator} on {@link LockstepLockRegistry} after Redis lost the leader's
 * lock while no other instance was there to take it (a failover, an eviction, a pause past the
 * lease): the leader's next heartbeat takes the lock again and goes on leading, holding it, so an
 * instance that starts afterwards is not granted leadership beside it. The initiator tries its lock
 * again every heartbeat and unlocks that extra hold at once, so the lock taken afresh must carry the
 * leader's first hold too. Two instances in one JVM, each with its own lock service, on a real Redis.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaderLockLossTests {

	private static final long HEARTBEAT_MILLIS = 100;

	private final String prefix = "il" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final CountDownLatch lostOnA = new CountDownLatch(1);

	private final Leaders leaders = new Leaders();

	private LettuceConnectionFactory factory;

	private StringRedisTemplate redis;

	private RedisLockService serviceA;

	private RedisLockService serviceB;

	private LockRegistryLeaderInitiator initiatorA;

	private LockRegistryLeaderInitiator initiatorB;

	@BeforeEach
	void start() {
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(endpoint.host(), endpoint.port()));
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.redis = new StringRedisTemplate(this.factory);
		this.serviceA = service("a");
		this.serviceA.setListener(new LockListener() {
			@Override
			public void lost(LockLostEvent event) {
				LeaderLockLossTests.this.lostOnA.countDown();
			}
		});
		this.serviceA.start();
		this.serviceB = service("b");
		this.serviceB.start();
	}

	private RedisLockService service(String instanceId) {
		RedisLockService service = new RedisLockService(this.factory);
		service.setKeyPrefix(this.prefix);
		service.setInstanceId(instanceId);
		service.setLeaseTime(Duration.ofSeconds(1));
		service.setHeartbeatInterval(Duration.ofMillis(100));
		service.setShutdownTimeout(Duration.ZERO);
		return service;
	}

	@AfterEach
	void stop() throws Exception {
		for (LockRegistryLeaderInitiator initiator : new LockRegistryLeaderInitiator[] { this.initiatorA,
				this.initiatorB }) {
			if (initiator != null) {
				initiator.destroy();
			}
		}
		this.serviceA.stop();
		this.serviceB.stop();
		this.redis.delete(this.redis.keys(this.prefix + "*"));
		this.factory.destroy();
	}

	@Test
	void aLeaderWhoseLockRedisLostTakesItAgainAndKeepsItSoNoSecondLeaderIsGranted() throws Exception {
		this.initiatorA = initiator(new LockstepLockRegistry(this.serviceA), "a");
		Await.until("a leads", Duration.ofSeconds(10), () -> this.leaders.isLeader("a"));
		String lockKey = this.prefix + "{integration:leader}";
		assertThat(this.redis.delete(lockKey)).as("the leader's lock, gone from Redis").isTrue();
		assertThat(this.lostOnA.await(10, TimeUnit.SECONDS)).as("a's lock service found its lock lost").isTrue();
		Thread.sleep(5 * HEARTBEAT_MILLIS);
		assertThat(this.leaders.isLeader("a")).as("a still leads: it was never revoked").isTrue();

		this.initiatorB = initiator(new LockstepLockRegistry(this.serviceB), "b");
		Thread.sleep(15 * HEARTBEAT_MILLIS);
		assertThat(this.leaders.overlap()).as("b granted while a leads").isNull();
		assertThat(this.leaders.isLeader("b")).isFalse();
		assertThat(this.serviceA.keyState("integration:leader").holderInstance())
			.as("the lock held by the leader").isEqualTo(this.serviceA.getInstanceId());

		this.leaders.steppingDown("a");
		this.initiatorA.stop();
		Await.until("b leads once a stopped", Duration.ofSeconds(10), () -> this.leaders.isLeader("b"));
		assertThat(this.leaders.overlap()).isNull();
	}

	/** The control: two leaders on registries that share nothing are seen overlapping. */
	@Test
	void theOverlapCheckSeesTwoLeadersOfUnsharedRegistries() {
		this.initiatorA = initiator(new DefaultLockRegistry(), "a");
		this.initiatorB = initiator(new DefaultLockRegistry(), "b");
		Await.until("both lead", Duration.ofSeconds(10), () -> this.leaders.isLeader("a") && this.leaders.isLeader("b"));
		assertThat(this.leaders.overlap()).isNotNull();
	}

	private LockRegistryLeaderInitiator initiator(LockRegistry<?> registry, String id) {
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, this.leaders.candidate(id));
		initiator.setHeartBeatMillis(HEARTBEAT_MILLIS);
		initiator.setBusyWaitMillis(50);
		initiator.start();
		return initiator;
	}

	/**
	 * Who leads, by the candidates' callbacks, and the first overlap seen: a candidate granted while
	 * another leads. A leader the test asks to step down stops counting at once, because a stepping
	 * down initiator releases its lock before it revokes its candidate.
	 */
	static final class Leaders {

		private final Map<String, Boolean> leading = new ConcurrentHashMap<>();

		private final AtomicReference<String> overlap = new AtomicReference<>();

		Candidate candidate(String id) {
			return new Candidate() {

				@Override
				public String getRole() {
					return "leader";
				}

				@Override
				public String getId() {
					return id;
				}

				@Override
				public void onGranted(Context context) {
					Leaders.this.leading.forEach((other, leads) -> {
						if (leads && !other.equals(id)) {
							Leaders.this.overlap.compareAndSet(null, id + " granted while " + other + " leads");
						}
					});
					Leaders.this.leading.put(id, true);
				}

				@Override
				public void onRevoked(Context context) {
					Leaders.this.leading.put(id, false);
				}

			};
		}

		boolean isLeader(String id) {
			return this.leading.getOrDefault(id, false);
		}

		void steppingDown(String id) {
			this.leading.put(id, false);
		}

		String overlap() {
			return this.overlap.get();
		}

	}

}
