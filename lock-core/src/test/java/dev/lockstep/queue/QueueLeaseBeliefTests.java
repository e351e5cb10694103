package dev.lockstep.queue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long a running attempt believes in its lease: Redis counts a lease in whole milliseconds
 * from the millisecond its script ran in, so its record may end up to a millisecond before the
 * moment the take was sent plus the lease, and the next attempt may start then. An attempt is
 * therefore no longer current from a millisecond before that moment on, as a lock is.
 */
class QueueLeaseBeliefTests {

	private static final Duration LEASE = Duration.ofSeconds(2);

	/** No renewal is sent here: a started attempt's belief needs no Redis. */
	private final LeaseRenewals renewals = new LeaseRenewals(QueueKeys.of("q:", "imports"),
			new QueueSettings(LEASE, 3, Duration.ofMillis(100), Duration.ofMinutes(1)), null, Duration.ofSeconds(2));

	@Test
	void anAttemptInTheLastMillisecondOfItsLeaseIsNoLongerCurrent() {
		// the take was sent so long ago that its lease, counted from then, ends 0.8 ms from now
		long sent = System.nanoTime() - LEASE.toNanos() + TimeUnit.MICROSECONDS.toNanos(800);
		RunningTask attempt = this.renewals.started("w:1:1", started(sent));
		assertThat(attempt.isCurrent()).as("an attempt whose lease may already have ended on Redis's clock").isFalse();
	}

	@Test
	void anAttemptWithMoreThanAMillisecondOfItsLeaseLeftIsCurrent() {
		long sent = System.nanoTime() - LEASE.toNanos() + TimeUnit.MILLISECONDS.toNanos(500);
		RunningTask attempt = this.renewals.started("w:1:2", started(sent));
		assertThat(attempt.isCurrent()).isTrue();
	}

	private static QueueScripts.Started started(long sentNanos) {
		return new QueueScripts.Started("imports", "t1", "w:1:1", "g", "{}", 1, 0, "", 0, 1, sentNanos);
	}

}
