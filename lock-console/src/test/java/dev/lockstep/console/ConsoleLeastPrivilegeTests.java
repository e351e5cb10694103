package dev.lockstep.console;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.lockstep.LockService;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.testing.RedisAclRule;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console's heartbeat and history as a Redis user with only the ACL rule docs/security.md
 * gives: the instance record, its alive mark and the lock-wait history are written, and Redis's
 * ACL log shows nothing of the console's refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsoleLeastPrivilegeTests {

	private static final String PREFIX = "app1:";

	private static RedisServer server;

	@BeforeAll
	static void startRedis() {
		server = RedisServer.start();
	}

	@AfterAll
	static void stopRedis() {
		server.close();
	}

	@Test
	void heartbeatAndHistoryAreWrittenAsAUserWithOnlyTheDocumentedRule() {
		RedisAclRule.documented().apply(server, "orders", "s3cret", PREFIX);
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
					ConsoleAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"spring.data.redis.username=orders", "spring.data.redis.password=s3cret", "lockstep.key-prefix=" + PREFIX,
					"lockstep.instance-id=acl-1", "lockstep.console.heartbeat-interval=200ms", "lockstep.lock.shutdown-timeout=0s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (var lock = context.getBean(LockService.class).acquire("acct-7", Duration.ofSeconds(5))) {
					assertThat(lock).isNotNull();
				}
				await().atMost(Duration.ofSeconds(10))
					.until(() -> exists(PREFIX + "console:instance:acl-1") && exists(PREFIX + "console:alive:acl-1")
							&& exists(PREFIX + "console:history:lock-wait"));
			});
		// nothing the console sent was refused (Lettuce's own CLIENT SETINFO on connecting is, and is ignored)
		assertThat((List<?>) server.call("ACL", "LOG")).allSatisfy((entry) -> assertThat(refused(entry)).isEqualTo("client"));
	}

	private static boolean exists(String key) {
		return Long.valueOf(1).equals(server.call("EXISTS", key));
	}

	/** What an ACL LOG entry (a flat list of names and values) says was refused. */
	private static Object refused(Object entry) {
		List<?> fields = (List<?>) entry;
		return fields.get(fields.indexOf("object") + 1);
	}

}
