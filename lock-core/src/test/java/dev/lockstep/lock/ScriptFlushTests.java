package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis's script cache emptied under a running service (a restart, a failover, {@code SCRIPT FLUSH}):
 * calls sent by SHA come back NOSCRIPT and go again in full, and none of that may reorder what one
 * thread did.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScriptFlushTests {

	private RedisServer server;

	private LettuceConnectionFactory factory;

	private RedisLockService service;

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.factory = RedisConnections.standalone(this.server.host(), this.server.port());
		this.service = RedisConnections.lockService(this.factory, "flush:", (settings) -> {
		});
	}

	@AfterEach
	void stop() {
		this.service.stop();
		this.factory.destroy();
		this.server.close();
	}

	/**
	 * The release goes by SHA and meets NOSCRIPT; the acquisition after it finds its own script loaded
	 * again (another call reloaded it) and would reach Redis first, finding the lock still held.
	 */
	@Test
	void aLockReleasedRightAfterAScriptFlushCanBeTakenAgainByTheSameThreadAtOnce() {
		List<LockHandle> others = new ArrayList<>();
		int failures = 0;
		for (int i = 0; i < 20; i++) {
			LockHandle handle = this.service.acquire("flushed-" + i, Duration.ZERO);
			this.server.call("SCRIPT", "FLUSH");
			// reloads the acquire script only: the release script stays missing
			Optional<LockHandle> other = this.service.tryAcquire("other-" + i, Duration.ZERO, Duration.ofSeconds(30));
			assertThat(other).isPresent();
			others.add(other.get());
			handle.close();
			Optional<LockHandle> again = this.service.tryAcquire("flushed-" + i, Duration.ZERO, Duration.ofSeconds(30));
			if (again.isEmpty()) {
				failures++;
			}
			again.ifPresent(LockHandle::close);
		}
		others.forEach(LockHandle::close);
		assertThat(failures).as("immediate re-acquisitions after a release that met NOSCRIPT, of 20, that failed")
			.isZero();
	}

}
