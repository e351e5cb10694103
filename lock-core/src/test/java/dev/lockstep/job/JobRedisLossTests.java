package dev.lockstep.job;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.GuardedJob;
import dev.lockstep.LockListener;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis losing its data (a restart without persistence, {@code FLUSHALL}) while a slot that ran is
 * still to be taken over: the slot does not run a second time. Before, the takeover that kept
 * trying through an outage found no records once Redis came back empty and ran the slot again,
 * minutes late (issue 47, item 3).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JobRedisLossTests {

	private RedisServer server;

	private LettuceConnectionFactory factory;

	private StringRedisTemplate template;

	private final String prefix = RedisConnections.uniquePrefix();

	private final List<RedisJobGuard> guards = new ArrayList<>();

	/** The skew tolerance of the script-level test, and its slots' window: twice that and a period of a second. */
	private static final long SKEW = 500;

	private static final long WINDOW = 2 * SKEW + 1000;

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.factory = RedisConnections.standalone(this.server.host(), this.server.port());
		this.template = new StringRedisTemplate(this.factory);
		this.template.afterPropertiesSet();
	}

	@AfterEach
	void stop() {
		this.guards.forEach(RedisJobGuard::stop);
		this.factory.destroy();
		this.server.close();
	}

	private long redisMillis() {
		return this.template.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

	private boolean answers() {
		try {
			redisMillis();
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/** The claim script's reply, its byte strings decoded. */
	private static List<Object> decoded(List<Object> reply) {
		List<Object> decoded = new ArrayList<>();
		for (Object part : reply) {
			decoded.add((part instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : part);
		}
		return decoded;
	}

	/**
	 * Slot S left to a by b's claim, and run by a; then Redis loses its data: b's takeover of S,
	 * within the window and after it, finds nothing that says S ran, and must not run it.
	 */
	@Test
	void aTakeoverAfterRedisLostItsDataDoesNotRunTheSlotAgain() throws Exception {
		try (RedisScripts redis = new RedisScripts(this.factory)) {
			JobScripts scripts = new JobScripts(redis);
			JobKeys keys = JobKeys.of(this.prefix, "flushed");
			long now = redisMillis();
			long slot = now / 1000 * 1000;
			for (String instance : List.of("a", "b")) {
				this.template.opsForHash().put(keys.members(), "seen:" + instance, Long.toString(now));
				this.template.opsForHash().put(keys.members(), "fired:" + instance, Long.toString(slot - 1000));
			}
			assertThat(decoded(claim(scripts, keys, "b", "b:1", slot, JobScripts.Mode.FIRST)).subList(0, 2))
				.as("left to a").containsExactly(2L, "a");
			assertThat(decoded(claim(scripts, keys, "a", "a:1", slot, JobScripts.Mode.FIRST)).get(0)).as("a runs it")
				.isEqualTo(1L);
			assertThat(scripts.finish(keys, "a:1", "a", slot, 0, 0, null, 0, 20).get()).isEqualTo(1L);

			this.server.call("FLUSHALL");
			List<Object> within = decoded(claim(scripts, keys, "b", "b:2", slot, JobScripts.Mode.TAKEOVER));
			assertThat(within.get(0)).as("b's takeover within the window, the slot's records gone: %s", within)
				.isEqualTo(0L);
			assertThat(within.get(1).toString()).startsWith("the slot's records are gone");

			// after the window: refused by the slot's age alone, whatever Redis remembers
			while (redisMillis() <= slot + WINDOW) {
				Thread.sleep(50);
			}
			this.server.call("FLUSHALL");
			List<Object> late = decoded(claim(scripts, keys, "b", "b:3", slot, JobScripts.Mode.TAKEOVER));
			assertThat(late.get(0)).as("b's takeover after the window: %s", late).isEqualTo(0L);
			assertThat(late.get(1).toString()).startsWith("slot is past the window in which it may still run (2000 ms");
			assertThat(this.template.opsForHash().get(keys.state(), "skip.reason").toString())
				.as("the skip recorded with its reason").startsWith("slot is past the window in which it may still run");
			assertThat(this.template.hasKey(keys.guard())).as("no run took the guard").isFalse();
		}
	}

	private static List<Object> claim(JobScripts scripts, JobKeys keys, String instance, String owner, long slot,
			JobScripts.Mode mode) throws Exception {
		return scripts.claim(keys, instance, owner, 60_000, slot, mode, null, 15_000, 300_000, slot + WINDOW, SKEW, true)
			.get();
	}

	private RedisJobGuard guard(String instance, LockListener listener) {
		RedisJobGuard guard = new RedisJobGuard(this.factory, new GuardedJobs());
		guard.setKeyPrefix(this.prefix);
		guard.setInstanceId(instance);
		guard.setSkewTolerance(Duration.ofSeconds(1));
		guard.setCommandTimeout(Duration.ofMillis(500));
		guard.setShutdownTimeout(Duration.ZERO);
		guard.setListener(listener);
		guard.start();
		this.guards.add(guard);
		return guard;
	}

	/**
	 * The case on two instances: a slot every second, skew-tolerance 1 s; b's firing of slot
	 * S is left to a, which runs it; redis-server is then killed before b's takeover, and started
	 * again, empty, 5 s later, past the slot's window (3 s: twice the tolerance and a period). b's
	 * takeover tried through the outage: S must not run a second time, and b's skip is recorded with
	 * the window as its reason.
	 */
	@Test
	void aTakeoverTriedThroughAnOutageDoesNotRunTheSlotAgainOnceRedisIsBackEmpty() throws Throwable {
		List<String> skips = new CopyOnWriteArrayList<>();
		LockListener listener = new LockListener() {
			@Override
			public void jobSkipped(String job, String reason) {
				skips.add(reason);
			}
		};
		RedisJobGuard a = guard("a", new LockListener() {
		});
		RedisJobGuard b = guard("b", listener);
		GuardedJob job = new GuardedJob("outage", "Outage.run()", Duration.ofMinutes(1), Duration.ZERO, "* * * * * *", "UTC");
		long slot = redisMillis() / 1000 * 1000 + 1000;
		JobKeys keys = JobKeys.of(this.prefix, "outage");
		// both alive (the guards announce only the jobs their application registered), and a fired the job
		// before, so the election chooses it
		this.template.opsForHash().put(keys.members(), "seen:a", Long.toString(slot));
		this.template.opsForHash().put(keys.members(), "seen:b", Long.toString(slot));
		this.template.opsForHash().put(keys.members(), "fired:a", Long.toString(slot - 1000));
		while (redisMillis() < slot) {
			Thread.sleep(10);
		}
		AtomicInteger runs = new AtomicInteger();
		assertThat(b.execute(job, Instant.ofEpochMilli(slot), runs::incrementAndGet, runs::incrementAndGet))
			.as("left to a").isNull();
		assertThat(a.execute(job, Instant.ofEpochMilli(slot), runs::incrementAndGet, runs::incrementAndGet))
			.as("a runs it").isEqualTo(1);
		// a's finish reaches Redis before the outage
		while (this.template.opsForList().size(keys.history()) == 0) {
			Thread.sleep(10);
		}

		this.server.kill();
		Thread.sleep(5_000);
		this.server.restart();
		// the guards' connection (the one connection factory) back, b's takeover, which tries every second, has 3 s
		while (!answers()) {
			Thread.sleep(100);
		}
		Thread.sleep(3_000);
		assertThat(runs.get()).as("runs of the slot").isEqualTo(1);
		assertThat(skips).as("b's skips").anyMatch((reason) -> reason.contains("past the window in which it may still run"));
	}

}
