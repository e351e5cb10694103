package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code lockstep.lock.replica-acknowledgements}: an acquisition counts only once that many
 * replicas have it, so a failover right after it cannot promote a replica that lacks it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicaAcknowledgementTests {

	private RedisServer master;

	private RedisServer replica;

	private LettuceConnectionFactory factory;

	private RedisLockService service;

	@BeforeEach
	void start() {
		this.master = RedisServer.start();
		this.replica = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(this.master.port()));
		awaitReplicaLinked();
		this.factory = RedisConnections.standalone(this.master.host(), this.master.port());
		this.service = RedisConnections.lockService(this.factory, "acks:", (settings) -> {
			settings.setReplicaAcknowledgements(1);
			settings.setCommandTimeout(Duration.ofSeconds(2));
		});
	}

	@AfterEach
	void stop() {
		this.service.stop();
		this.factory.destroy();
		this.replica.close();
		this.master.close();
	}

	@Test
	void anAcquisitionReturnsOnlyOnceTheReplicaHasIt() {
		for (int i = 0; i < 20; i++) {
			try (LockHandle handle = this.service.acquire("ledger-" + i, Duration.ZERO)) {
				assertThat(String.valueOf(this.replica.call("GET", "acks:{ledger-" + i + "}"))).as("the lock on the replica")
					.endsWith(":" + handle.fencingToken());
				assertThat(handle.isHeld()).isTrue();
			}
		}
		// a hand-over too: the waiter's confirmation is acknowledged before its handle says held
		LockHandle first = this.service.acquire("handover", Duration.ZERO);
		java.util.concurrent.CompletableFuture<String> second = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = this.service.acquire("handover", Duration.ofSeconds(20))) {
				return String.valueOf(this.replica.call("GET", "acks:{handover}")).endsWith(":" + handle.fencingToken())
						? "on the replica" : "missing on the replica";
			}
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(1).equals(this.master.call("LLEN", "acks:{handover}:queue")));
		first.close();
		assertThat(second.join()).isEqualTo("on the replica");
	}

	@Test
	void anAcquisitionNoReplicaAcknowledgesIsNotAcquiredAndLeavesNothingLocked() {
		this.replica.call("REPLICAOF", "NO", "ONE");
		await().atMost(Duration.ofSeconds(10)).until(() -> String.valueOf(this.master.call("INFO", "replication"))
			.contains("connected_slaves:0"));
		assertThatThrownBy(() -> this.service.acquire("ledger", Duration.ZERO)).isInstanceOf(LockUnavailableException.class)
			.hasMessageContaining("'ledger'")
			.hasMessageContaining("0 of the 1 replicas required (lockstep.lock.replica-acknowledgements)");
		await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(0).equals(this.master.call("EXISTS", "acks:{ledger}")));

		this.replica.call("REPLICAOF", "127.0.0.1", Integer.toString(this.master.port()));
		awaitReplicaLinked();
		try (LockHandle handle = this.service.acquire("ledger", Duration.ZERO)) {
			assertThat(handle.isHeld()).isTrue();
		}
	}

	private void awaitReplicaLinked() {
		await().atMost(Duration.ofSeconds(30))
			.until(() -> String.valueOf(this.replica.call("INFO", "replication")).contains("master_link_status:up"));
	}

}
