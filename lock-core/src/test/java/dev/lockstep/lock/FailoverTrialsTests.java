package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How often a failover right after an acquisition loses the lock (so that a second holder can take
 * it from the promoted replica), with and without {@code lockstep.lock.replica-acknowledgements}.
 * Each trial: a master, a replica whose replication stream runs 150 ms late (through a
 * {@link FaultProxy}, as on a loaded or distant replica), one acquisition, the master killed at
 * once and the replica promoted (what Sentinel does, without its detection delay). The figures in
 * the README come from {@code -Dlockstep.failover.trials=50}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class FailoverTrialsTests {

	private static final int TRIALS = Integer.getInteger("lockstep.failover.trials", 5);

	private static final long REPLICATION_DELAY_MS = Long.getLong("lockstep.failover.replication-delay-ms", 150);

	@Test
	void aLockAcknowledgedByItsReplicaSurvivesAFailoverRightAfterItWasTaken() throws Exception {
		int lostWithout = 0;
		int lostWith = 0;
		for (int i = 0; i < TRIALS; i++) {
			lostWithout += lostInFailover(0) ? 1 : 0;
			lostWith += lostInFailover(1) ? 1 : 0;
		}
		System.out.printf("Failover right after acquiring, replication %d ms late, %d trials each: lost %d without replica "
				+ "acknowledgements, %d with 1%n", REPLICATION_DELAY_MS, TRIALS, lostWithout, lostWith);
		assertThat(lostWith).as("locks lost in a failover with replica-acknowledgements=1").isZero();
		// the control: without waiting, a late replica misses most acquisitions
		org.junit.jupiter.api.Assumptions.assumeTrue(REPLICATION_DELAY_MS >= 50, "no control without a late replica");
		assertThat(lostWithout).as("locks lost in a failover without waiting for the replica")
			.isGreaterThanOrEqualTo(TRIALS / 2 + 1);
	}

	private static boolean lostInFailover(int replicaAcknowledgements) throws Exception {
		try (RedisServer master = RedisServer.start();
				FaultProxy replicationLink = FaultProxy.start(master.host(), master.port());
				RedisServer replica = RedisServer.start("--replicaof", replicationLink.host(),
						Integer.toString(replicationLink.port()))) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> String.valueOf(replica.call("INFO", "replication")).contains("master_link_status:up"));
			replicationLink.latency(Duration.ZERO, Duration.ofMillis(REPLICATION_DELAY_MS));
			LettuceConnectionFactory factory = RedisConnections.standalone(master.host(), master.port());
			RedisLockService service = RedisConnections.lockService(factory, "failover:", (settings) -> {
				settings.setReplicaAcknowledgements(replicaAcknowledgements);
				settings.setCommandTimeout(Duration.ofSeconds(2));
			});
			try {
				LockHandle handle = service.acquire("ledger", Duration.ZERO);
				assertThat(handle.isHeld()).isTrue();
				master.kill();
				replica.call("REPLICAOF", "NO", "ONE");
				return !Long.valueOf(1).equals(replica.call("EXISTS", "failover:{ledger}"));
			}
			finally {
				service.stop();
				factory.destroy();
			}
		}
	}

}
