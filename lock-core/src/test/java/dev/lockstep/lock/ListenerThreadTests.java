package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listener that blocks (a synchronous Redis call, a slow log appender) when told of a lost lock
 * must not stall Lockstep: the loss is found on a Redis client thread, and other locks' renewals
 * are answered on that same thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ListenerThreadTests {

	private static final Duration LEASE = Duration.ofSeconds(1);

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private RedisLockService service;

	private final CompletableFuture<String> lostOnThread = new CompletableFuture<>();

	@BeforeEach
	void start() {
		this.service = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (settings) -> {
			settings.setLeaseTime(LEASE);
			settings.setHeartbeatInterval(Duration.ofMillis(100));
			settings.setListener(new LockListener() {
				@Override
				public void lost(LockLostEvent event) {
					ListenerThreadTests.this.lostOnThread.complete(Thread.currentThread().getName());
					try {
						Thread.sleep(LEASE.multipliedBy(4).toMillis());
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
			});
		});
	}

	@AfterEach
	void stop() {
		this.service.stop();
	}

	@Test
	void aListenerThatBlocksOnALostLockDoesNotStallTheRenewalsOfOtherLocks() throws Exception {
		LockHandle doomed = this.service.acquire("doomed", Duration.ZERO);
		try (LockHandle healthy = this.service.acquire("healthy", Duration.ZERO)) {
			this.redis.template().delete(this.redis.prefix() + "{doomed}");
			String thread = this.lostOnThread.get(10, TimeUnit.SECONDS);
			assertThat(thread).isEqualTo("lockstep-events");
			// the listener blocks for four leases; the healthy lock must be renewed meanwhile
			long until = System.nanoTime() + LEASE.multipliedBy(3).toNanos();
			while (System.nanoTime() < until) {
				assertThat(healthy.isHeld()).as("healthy lock while the listener blocks").isTrue();
				Thread.sleep(50);
			}
			assertThat(this.redis.template().getExpire(this.redis.prefix() + "{healthy}", TimeUnit.MILLISECONDS)).isPositive();
			assertThat(doomed.isHeld()).isFalse();
		}
		doomed.close();
	}

}
