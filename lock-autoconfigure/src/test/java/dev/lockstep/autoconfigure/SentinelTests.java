package dev.lockstep.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Lockstep behind Redis Sentinel, configured the Spring Boot way: it finds the master through the Sentinel. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SentinelTests {

	@Test
	void afterAFailoverLockingResumesOnThePromotedReplicaWithLargerFencingTokens() {
		try (RedisServer master = RedisServer.start();
				RedisServer replica = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
				RedisServer sentinel = RedisServer.startSentinel("orders", master)) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up"));
			await().atMost(Duration.ofSeconds(30))
				.until(() -> !((List<?>) sentinel.call("SENTINEL", "REPLICAS", "orders")).isEmpty());
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.sentinel.master=orders",
						"spring.data.redis.sentinel.nodes=" + sentinel.host() + ":" + sentinel.port(),
						"lockstep.command-timeout=1s")
				.run((context) -> {
					LockService lockService = context.getBean(LockService.class);
					long before;
					try (LockHandle handle = lockService.acquire("ledger", Duration.ZERO)) {
						before = handle.fencingToken();
					}
					master.kill();
					AtomicLong after = new AtomicLong();
					await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
						try (LockHandle handle = lockService.acquire("ledger", Duration.ofSeconds(1))) {
							after.set(handle.fencingToken());
							return true;
						}
					});
					assertThat(String.valueOf(replica.call("INFO", "replication"))).contains("role:master");
					assertThat(after.get()).isGreaterThan(before);
				});
		}
	}

	@Test
	void locksLiveOnTheMasterTheSentinelNames() {
		try (RedisServer master = RedisServer.start(); RedisServer sentinel = RedisServer.startSentinel("orders", master)) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.sentinel.master=orders",
						"spring.data.redis.sentinel.nodes=" + sentinel.host() + ":" + sentinel.port(),
						"lockstep.key-prefix=sentinel:")
				.run((context) -> {
					LockService lockService = context.getBean(LockService.class);
					try (LockHandle handle = lockService.acquire("invoice-7", Duration.ofSeconds(1))) {
						assertThat(handle.isHeld()).isTrue();
						assertThat(master.call("EXISTS", "sentinel:{invoice-7}")).isEqualTo(1L);
					}
					// the release is on its way without waiting for the reply; the master gets it shortly
					await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(0).equals(master.call("EXISTS", "sentinel:{invoice-7}")));
				});
		}
	}

}
