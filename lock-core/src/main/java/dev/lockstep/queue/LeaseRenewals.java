package dev.lockstep.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks one queue's workers run on this instance, by the owner id of their take (unique per
 * take), and the renewal of their leases (queue-renew.lua), run every third of the lease: a
 * renewal that Redis accepts moves each attempt's local deadline; one that finds a lease gone
 * marks the attempt no longer current and warns while it still runs.
 */
final class LeaseRenewals {

	private static final Logger logger = LoggerFactory.getLogger(LeaseRenewals.class);

	/** Redis's lease records end on a millisecond of its clock (see {@link #believedLeaseNanos}). */
	static final long REDIS_CLOCK_GRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final Map<String, RunningTask> running = new ConcurrentHashMap<>();

	private final QueueKeys keys;

	private final QueueSettings settings;

	private final QueueScripts scripts;

	private final Duration commandTimeout;

	LeaseRenewals(QueueKeys keys, QueueSettings settings, QueueScripts scripts, Duration commandTimeout) {
		this.keys = keys;
		this.settings = settings;
		this.scripts = scripts;
		this.commandTimeout = commandTimeout;
	}

	/**
	 * A task {@code owner}'s take started, whose take was sent at {@code sentNanos}; run on this
	 * thread. Its lease is believed until {@link #believedLeaseNanos} after that.
	 */
	RunningTask started(String owner, QueueScripts.Started task) {
		RunningTask entry = new RunningTask(task.id(), Thread.currentThread(), task.sentNanos() + believedLeaseNanos());
		this.running.put(owner, entry);
		return entry;
	}

	void ended(String owner) {
		this.running.remove(owner);
	}

	boolean isEmpty() {
		return this.running.isEmpty();
	}

	void forEach(BiConsumer<String, RunningTask> action) {
		this.running.forEach(action);
	}

	/**
	 * How long after its take or renewal was sent an attempt believes in its lease: Redis counts the
	 * lease in whole milliseconds from the millisecond its script ran in, so its record may end up to
	 * {@link #REDIS_CLOCK_GRAIN_NANOS} before the sending moment plus the lease, and another attempt
	 * may start then; this instance believes in it that much less, as the locks do.
	 */
	private long believedLeaseNanos() {
		return this.settings.leaseTime().toNanos() - REDIS_CLOCK_GRAIN_NANOS;
	}

	/** Renews the running tasks' leases; scheduled, so it never throws. */
	void renew() {
		try {
			renewRunning();
		}
		catch (RuntimeException ex) {
			// a scheduled task that throws is never run again: log, and renew on the next turn
			logger.warn("Renewing the leases of queue '{}' failed", this.keys.queue(), ex);
		}
	}

	private void renewRunning() {
		if (this.running.isEmpty()) {
			return;
		}
		// by task id; a task taken again on this instance after its lease ran out renews its newest take only
		Map<String, String> owners = new LinkedHashMap<>();
		this.running.forEach((owner, entry) -> owners.merge(entry.taskId(), owner, LeaseRenewals::newerOwner));
		long sent = System.nanoTime();
		long renewedUntil = sent + believedLeaseNanos();
		this.scripts.renew(this.keys, owners, this.settings.leaseTime())
			.orTimeout(this.commandTimeout.toMillis(), TimeUnit.MILLISECONDS)
			.whenComplete((lost, error) -> {
				if (error != null) {
					logger.warn("Renewing the leases of {} running task(s) of queue '{}' failed: {}", owners.size(),
							this.keys.queue(), QueueWorkers.message(error));
					return;
				}
				// by owner: the take this renewal was for; a lost lease is worth a warning only while its
				// attempt still runs (not for a finish or failure that reached Redis before the renewal)
				owners.forEach((id, owner) -> {
					RunningTask entry = this.running.get(owner);
					if (entry == null) {
						return;
					}
					if (!lost.contains(id)) {
						entry.renewedUntil(renewedUntil);
					}
					else if (entry.lost()) {
						logger.warn("Task {} of queue '{}' lost its lease while it ran (this instance could not renew "
								+ "it in time): it may run again elsewhere, beside its group's later tasks", id,
								this.keys.queue());
					}
				});
			});
	}

	/** Of two owner ids of this instance ({@code <instance>:<run>:<sequence>}), the one taken later. */
	private static String newerOwner(String one, String other) {
		return (sequenceOf(one) >= sequenceOf(other)) ? one : other;
	}

	private static long sequenceOf(String owner) {
		return Long.parseLong(owner.substring(owner.lastIndexOf(':') + 1));
	}

}
