package dev.lockstep.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis user without rights on any Pub/Sub channel (an ACL with {@code resetchannels}): the
 * release script's PUBLISH is refused after its writes, and the wake-up subscription too. The
 * hand-over must still happen, the releasing caller must not be told it failed, and the waiter
 * must find its grant through its heartbeat.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChannelPermissionTests {

	@Test
	void aUserWithoutChannelRightsStillHandsLocksOverThroughHeartbeats() throws Exception {
		try (RedisServer server = RedisServer.start()) {
			server.call("ACL", "SETUSER", "locker", "on", ">s3cret", "~*", "resetchannels", "+@all");
			LettuceConnectionFactory factory = connectAs(server, "locker", "s3cret");
			List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
			RedisLockService holder = RedisConnections.lockService(factory, "acl:", (settings) -> {
				settings.setHeartbeatInterval(Duration.ofMillis(100));
				settings.setListener(new LockListener() {
					@Override
					public void lost(LockLostEvent event) {
						lost.add(event);
					}
				});
			});
			RedisLockService waiter = RedisConnections.lockService(factory, "acl:",
					(settings) -> settings.setHeartbeatInterval(Duration.ofMillis(100)));
			try {
				LockHandle held = holder.acquire("ledger", Duration.ZERO);
				CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
					try (LockHandle handle = waiter.acquire("ledger", Duration.ofSeconds(30))) {
						return handle.isHeld() ? handle.fencingToken() : -1L;
					}
				});
				await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(1).equals(server.call("LLEN", "acl:{ledger}:queue")));
				held.close();
				// handed over with a token one higher, found by the waiter's heartbeat (no wake-up can reach it)
				assertThat(next.get(20, TimeUnit.SECONDS)).isEqualTo(held.fencingToken() + 1);
				assertThat(lost).isEmpty();
				// the releases went through: nothing is left
				await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(0).equals(server.call("EXISTS", "acl:{ledger}")));
			}
			finally {
				holder.stop();
				waiter.stop();
				factory.destroy();
			}
		}
	}

	@Test
	void aReleaseThatHandsOverAnswersThatItReleasedEvenWhenItsWakeUpIsRefused() throws Exception {
		try (RedisServer server = RedisServer.start()) {
			server.call("ACL", "SETUSER", "locker", "on", ">s3cret", "~*", "resetchannels", "+@all");
			LettuceConnectionFactory factory = connectAs(server, "locker", "s3cret");
			try (RedisScripts redis = new RedisScripts(factory)) {
				LockScripts scripts = new LockScripts(redis, "acl:wake:");
				LockKeys keys = LockKeys.of("acl:", "ledger");
				long token = scripts.acquire(keys, "a:1", 30_000, "", 60_000).get(10, TimeUnit.SECONDS);
				assertThat(scripts.acquire(keys, "b:1", 30_000, "b:1:500", 60_000).get(10, TimeUnit.SECONDS)).isZero();
				// the hand-over's PUBLISH is refused for this user; the release still answers 1, not an error
				assertThat(scripts.release(keys, "a:1", token).get(10, TimeUnit.SECONDS)).isEqualTo(1L);
				assertThat(String.valueOf(server.call("GET", "acl:{ledger}"))).startsWith("b:1:");
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static LettuceConnectionFactory connectAs(RedisServer server, String user, String password) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
		configuration.setUsername(user);
		configuration.setPassword(password);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
