package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.internal.redis.RedisScripts;

/**
 * Renews the leases of held locks that have no explicit lease, a third of the lease after the
 * last confirmation, from the one timer thread of the lock service. Renewals due on the same tick
 * go together: one script call per cluster slot (one call in all on a single server), one for the
 * locks and one for the permits.
 */
final class LeaseWatchdog {

	private static final Logger logger = LoggerFactory.getLogger(LeaseWatchdog.class);

	private static final int MAX_BATCH = 128;

	private final LockScripts scripts;

	private final LostLocks lostLocks;

	private final LateRenewals lateRenewals;

	/** How long a renewal may take before it counts as failed and the next tick sends another. */
	private final long commandTimeoutNanos;

	/** Where Redis is tried, in words, for messages. */
	private final String redis;

	private final Set<LockOwnership> watched = ConcurrentHashMap.newKeySet();

	LeaseWatchdog(LockScripts scripts, LostLocks lostLocks, LateRenewals lateRenewals, Duration commandTimeout,
			String redis) {
		this.scripts = scripts;
		this.commandTimeoutNanos = commandTimeout.toNanos();
		this.lostLocks = lostLocks;
		this.lateRenewals = lateRenewals;
		this.redis = redis;
	}

	void watch(LockOwnership lock) {
		this.watched.add(lock);
	}

	void unwatch(LockOwnership lock) {
		this.watched.remove(lock);
	}

	void tick() {
		long now = System.nanoTime();
		Map<Integer, List<LockOwnership>> dueBySlot = new HashMap<>();
		for (LockOwnership lock : this.watched) {
			if (!lock.isActive()) {
				this.watched.remove(lock);
			}
			else if (now - lock.confirmedUntilNanos() >= 0) {
				this.watched.remove(lock);
				this.lostLocks.lost(lock, "its lease ran out before Redis confirmed a renewal");
			}
			else if (lock.renewalDue(now) && lock.startRenewal()) {
				int slot = this.scripts.isCluster() ? RedisScripts.slot(lock.keys().lock()) : 0;
				dueBySlot.computeIfAbsent(slot * 2 + (lock.keys().isPermits() ? 1 : 0), (key) -> new ArrayList<>()).add(lock);
			}
		}
		for (List<LockOwnership> due : dueBySlot.values()) {
			for (int from = 0; from < due.size(); from += MAX_BATCH) {
				renew(due.subList(from, Math.min(due.size(), from + MAX_BATCH)), now);
			}
		}
	}

	private void renew(List<LockOwnership> batch, long sentAtNanos) {
		// Bounded like every other call: a renewal stuck in the client (its node failed over, its
		// connection being replaced) would otherwise hold back the next ones for the client's own,
		// much longer, timeout while the lease runs out.
		this.scripts.renew(batch).orTimeout(this.commandTimeoutNanos, TimeUnit.NANOSECONDS)
			.whenComplete((renewed, error) -> {
				for (int i = 0; i < batch.size(); i++) {
					LockOwnership lock = batch.get(i);
					if (error == null && renewed.get(i) == 1L) {
						// renewals go out with two thirds of the confirmed lease left; one confirmed with under a third came late
						long leftNanos = lock.confirmedUntilNanos() - System.nanoTime();
						long lateBelowNanos = lock.confirmedLeaseNanos() / 3;
						lock.confirm(sentAtNanos, lock.leaseNanos());
						if (leftNanos < lateBelowNanos) {
							this.lateRenewals.late(lock, Math.max(0, leftNanos));
						}
					}
					else if (error == null && this.watched.remove(lock) && lock.isActive()) {
						this.lostLocks.lost(lock, "the watchdog found it gone from Redis");
					}
					lock.renewalDone();
				}
				if (error != null) {
					logger.warn("Could not renew {} lock lease(s) on {}, will retry: {}", batch.size(), this.redis,
							error.toString());
				}
			});
	}

	/** Where a renewal confirmed with under a third of the lease left goes. */
	interface LateRenewals {

		void late(LockOwnership lock, long leaseLeftNanos);

	}

	/** Where a lock the watchdog found gone goes. */
	interface LostLocks {

		void lost(LockOwnership lock, String reason);

	}

}
