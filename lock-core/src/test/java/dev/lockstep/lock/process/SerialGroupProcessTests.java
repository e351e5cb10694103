package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.LockHandle;
import dev.lockstep.SerialGroups;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Serial groups across real processes: arrival order over two JVMs, and a waiting or a holding
 * JVM killed with SIGKILL. The test JVM holds the group while calls queue, so it decides when
 * each call joins the queue and when the queue starts moving.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SerialGroupProcessTests {

	private static final String GROUP = "import:tenant-7:E42";

	private final TestRedis.Endpoint endpoint = TestRedis.standalone();

	private final String prefix = RedisConnections.uniquePrefix();

	private LettuceConnectionFactory connection;

	private StringRedisTemplate redis;

	private RedisLockService holder;

	@BeforeEach
	void start() {
		this.connection = RedisConnections.standalone(this.endpoint.host(), this.endpoint.port());
		this.redis = new StringRedisTemplate(this.connection);
		this.redis.afterPropertiesSet();
		this.holder = RedisConnections.lockService(this.connection, GroupMember.groupPrefix(this.prefix), (settings) -> {
		});
	}

	@AfterEach
	void stop() {
		this.holder.stop();
		this.connection.destroy();
	}

	private JavaProcess member(String name, long leaseMillis) {
		JavaProcess process = JavaProcess.start("group-" + name, GroupMember.class, LockingWorker.JVM_OPTIONS,
				this.endpoint.host(), Integer.toString(this.endpoint.port()), this.prefix, GROUP, name, Long.toString(leaseMillis));
		process.awaitLine("READY", Duration.ofSeconds(60));
		return process;
	}

	private void join(String member, String label, long workMillis, long queueLength) {
		this.redis.opsForList().rightPush(this.prefix + "control:" + member, "join:" + label + ":" + workMillis);
		await().atMost(Duration.ofSeconds(20)).until(() -> queueLength() == queueLength);
	}

	private long queueLength() {
		Long size = this.redis.opsForList().size(queueKey());
		return (size != null) ? size : 0;
	}

	private String queueKey() {
		return GroupMember.groupPrefix(this.prefix) + "{" + SerialGroups.LOCK_KEY_PREFIX + GROUP + "}:queue";
	}

	private List<String> order() {
		return this.redis.opsForList().range(this.prefix + "order", 0, -1);
	}

	private LockHandle holdGroup() {
		return this.holder.acquire(SerialGroups.LOCK_KEY_PREFIX + GROUP, Duration.ZERO);
	}

	@Test
	void callsFromTwoJvmsRunInTheOrderTheyJoinedTheQueue() {
		try (JavaProcess a = member("a", 30_000); JavaProcess b = member("b", 30_000)) {
			List<String> joins = List.of("a:a1", "b:b1", "a:a2", "b:b2", "b:b3", "a:a3", "b:b4", "a:a4");
			try (LockHandle held = holdGroup()) {
				for (int i = 0; i < joins.size(); i++) {
					String[] join = joins.get(i).split(":");
					join(join[0], join[1], 30, i + 1);
				}
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> order().size() == joins.size());
			assertThat(order()).containsExactly("a1", "b1", "a2", "b2", "b3", "a3", "b4", "a4");
			assertThat(a.output() + b.output()).doesNotContain("OVERLAP").doesNotContain("FAILED");
			assertNothingLeft();
		}
	}

	@Test
	void aKilledWaitingJvmDoesNotHoldUpTheCallsBehindIt() {
		try (JavaProcess doomed = member("doomed", 30_000); JavaProcess next = member("next", 30_000)) {
			long released;
			try (LockHandle held = holdGroup()) {
				join("doomed", "ghost", 30, 1);
				join("next", "after-ghost", 30, 2);
				doomed.kill();
				released = System.currentTimeMillis();
			}
			// The dead JVM's entry is at the head: it may be handed the group first, but only for the
			// short first lease of a hand-over, which its instance never confirms.
			next.awaitLine("RAN after-ghost", Duration.ofSeconds(20));
			assertThat(System.currentTimeMillis() - released).as("ms from release to the next call's run")
				.isLessThan(2_500 + 4_000);
			assertThat(order()).containsExactly("after-ghost");
			await().atMost(Duration.ofSeconds(20)).until(() -> queueLength() == 0);
			assertNothingLeft();
		}
	}

	@Test
	void aKilledWaitingJvmIsDroppedFromTheQueueWhileTheGroupIsBusy() {
		try (JavaProcess doomed = member("doomed", 30_000); JavaProcess next = member("next", 30_000)) {
			try (LockHandle held = holdGroup()) {
				join("doomed", "ghost", 30, 1);
				join("next", "after-ghost", 30, 2);
				doomed.kill();
				// the other waiting instance's heartbeats drop the entry once its liveness runs out
				await().atMost(Duration.ofSeconds(15)).until(() -> queueLength() == 1);
				assertThat(this.redis.opsForList().range(queueKey(), 0, -1)).singleElement()
					.satisfies((entry) -> assertThat(entry).startsWith(instanceOf(next) + ":"));
			}
			next.awaitLine("RAN after-ghost", Duration.ofSeconds(10));
			assertThat(order()).containsExactly("after-ghost");
			assertNothingLeft();
		}
	}

	@Test
	void aKilledHoldingJvmFreesTheGroupWithinItsLease() {
		try (JavaProcess doomed = member("doomed", 3_000); JavaProcess next = member("next", 30_000)) {
			join("doomed", "long-call", 60_000, 0);
			await().atMost(Duration.ofSeconds(20)).until(() -> order().contains("long-call"));
			join("next", "after-holder", 30, 1);
			long killed = System.currentTimeMillis();
			doomed.kill();
			next.awaitLine("RAN after-holder", Duration.ofSeconds(20));
			assertThat(System.currentTimeMillis() - killed).as("ms from kill to the next call's run").isLessThan(3_000 + 1_000 + 2_000);
			await().atMost(Duration.ofSeconds(20)).until(() -> RedisConnections.keys(this.redis, GroupMember.groupPrefix(this.prefix)).isEmpty());
		}
	}

	/** The lock service instance id the member printed when it was ready. */
	private static String instanceOf(JavaProcess process) {
		return process.awaitLine("READY", Duration.ofSeconds(1)).substring("READY ".length());
	}

	private void assertNothingLeft() {
		await().atMost(Duration.ofSeconds(20))
			.until(() -> RedisConnections.keys(this.redis, GroupMember.groupPrefix(this.prefix)).isEmpty());
	}

}
