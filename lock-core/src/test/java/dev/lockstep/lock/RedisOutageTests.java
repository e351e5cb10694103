package dev.lockstep.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Redis down: the lock fails closed, reports what it can no longer vouch for, and recovers by itself. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisOutageTests {

	private RedisServer server;

	private LettuceConnectionFactory factory;

	private RedisLockService service;

	private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.factory = RedisConnections.standalone(this.server.host(), this.server.port());
		this.service = RedisConnections.lockService(this.factory, "outage:", (settings) -> {
			settings.setCommandTimeout(Duration.ofSeconds(1));
			settings.setLeaseTime(Duration.ofSeconds(2));
			settings.setHeartbeatInterval(Duration.ofMillis(100));
			settings.setListener(new LockListener() {
				@Override
				public void lost(LockLostEvent event) {
					RedisOutageTests.this.lost.add(event);
				}
			});
		});
	}

	@AfterEach
	void stop() {
		this.service.stop();
		this.factory.destroy();
		this.server.close();
	}

	@Test
	void protectedCodeNeverRunsWhileRedisIsDownAndLockingResumesWhenItReturns() {
		AtomicInteger runs = new AtomicInteger();
		this.service.runLocked("report", Duration.ofSeconds(1), runs::incrementAndGet);
		this.server.kill();

		for (int i = 0; i < 3; i++) {
			long start = System.nanoTime();
			assertThatThrownBy(() -> this.service.runLocked("report", Duration.ofSeconds(1), runs::incrementAndGet))
				.isInstanceOf(LockUnavailableException.class)
				.hasMessageContaining("'report'");
			// bounded by the command timeout, not by Lettuce's own 60s default
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
		}
		assertThat(runs).hasValue(1);

		this.server.restart();
		await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
			.until(() -> {
				this.service.runLocked("report", Duration.ofSeconds(1), runs::incrementAndGet);
				return true;
			});
		assertThat(runs).hasValue(2);
	}

	@Test
	void aServiceStartedWhileRedisIsDownWorksOnceRedisIsUp() throws Exception {
		this.server.kill();
		RedisLockService late = RedisConnections.lockService(this.factory, "outage:",
				(settings) -> {
					settings.setHeartbeatInterval(Duration.ofSeconds(30));
					settings.setLeaseTime(Duration.ofSeconds(120));
				});
		try {
			assertThatThrownBy(() -> late.acquire("boot", Duration.ZERO)).isInstanceOf(LockUnavailableException.class);
			this.server.restart();
			await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
				late.acquire("boot", Duration.ZERO).close();
				return true;
			});
			// with a 30s heartbeat only the wake-up subscription, opened once Redis was back, can hand over in time
			LockHandle held = this.service.acquire("handover", Duration.ofSeconds(10));
			java.util.concurrent.CompletableFuture<Boolean> waiting = java.util.concurrent.CompletableFuture
				.supplyAsync(() -> {
					try (LockHandle handle = late.acquire("handover", Duration.ofSeconds(60))) {
						return handle.isHeld();
					}
				});
			await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(1).equals(this.server.call("LLEN", "outage:{handover}:queue")));
			held.close();
			assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			late.stop();
		}
	}

	@Test
	void aHeldLockThatCannotBeRenewedStopsCountingAsHeldWhenItsLeaseEnds() {
		LockHandle handle = this.service.acquire("nightly", Duration.ZERO);
		this.server.kill();
		await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.lost.isEmpty());
		assertThat(this.lost.get(0).key()).isEqualTo("nightly");
		handle.close();
	}


	@Test
	void aRestartWithoutPersistenceTellsHoldersOfTheLossFreesWaitersAndLockingGoesOn() throws Exception {
		LockHandle held = this.service.acquire("export", Duration.ZERO);
		RedisLockService other = RedisConnections.lockService(this.factory, "outage:", (settings) -> {
			settings.setCommandTimeout(Duration.ofSeconds(1));
			settings.setLeaseTime(Duration.ofSeconds(2));
			settings.setHeartbeatInterval(Duration.ofMillis(100));
		});
		try {
			java.util.concurrent.CompletableFuture<Boolean> waiter = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
				try (LockHandle handle = other.acquire("export", Duration.ofSeconds(20))) {
					return handle.isHeld();
				}
			});
			await().atMost(Duration.ofSeconds(10))
				.until(() -> Long.valueOf(1).equals(this.server.call("LLEN", "outage:{export}:queue")));
			long restartedAt = System.nanoTime();
			this.server.restart();
			// the holder hears of the loss at its first renewal that reaches the restarted server
			await().atMost(Duration.ofSeconds(15)).until(() -> !this.lost.isEmpty());
			assertThat(this.lost.get(0).key()).isEqualTo("export");
			assertThat(held.isHeld()).isFalse();
			// the waiter, whose queue entry the restart erased, does not hang: it gets the lock
			assertThat(waiter.get(25, TimeUnit.SECONDS)).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - restartedAt)).isLessThan(Duration.ofSeconds(20));
			held.close();
			try (LockHandle again = this.service.acquire("export", Duration.ofSeconds(5))) {
				assertThat(again.isHeld()).as("locking works again without restarting the application").isTrue();
			}
		}
		finally {
			other.stop();
		}
	}

	@Test
	void withAnAppendOnlyFileSyncedOnEveryWriteHeldLocksSurviveARestart() throws Exception {
		try (RedisServer durable = RedisServer.start("--appendonly", "yes", "--appendfsync", "always")) {
			LettuceConnectionFactory durableFactory = RedisConnections.standalone(durable.host(), durable.port());
			List<LockLostEvent> durableLost = new CopyOnWriteArrayList<>();
			RedisLockService holder = RedisConnections.lockService(durableFactory, "durable:", (settings) -> {
				settings.setCommandTimeout(Duration.ofSeconds(1));
				settings.setLeaseTime(Duration.ofSeconds(5));
				settings.setHeartbeatInterval(Duration.ofMillis(200));
				settings.setListener(new LockListener() {
					@Override
					public void lost(LockLostEvent event) {
						durableLost.add(event);
					}
				});
			});
			RedisLockService other = RedisConnections.lockService(durableFactory, "durable:", (settings) -> {
			});
			try {
				LockHandle held = holder.acquire("ledger", Duration.ZERO);
				durable.restart();
				assertThat(durable.call("EXISTS", "durable:{ledger}")).as("the lock after the restart").isEqualTo(1L);
				// renewals reach the restarted server before the lease ends: the holder keeps its lock
				Thread.sleep(6_000);
				assertThat(durableLost).isEmpty();
				assertThat(held.isHeld()).isTrue();
				assertThat(other.tryAcquire("ledger", Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
				held.close();
				assertThat(other.tryAcquire("ledger", Duration.ofSeconds(5), Duration.ofSeconds(5))).isPresent()
					.hasValueSatisfying(LockHandle::close);
			}
			finally {
				holder.stop();
				other.stop();
				durableFactory.destroy();
			}
		}
	}

}
