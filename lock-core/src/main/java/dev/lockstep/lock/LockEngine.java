package dev.lockstep.lock;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

import dev.lockstep.LockException;
import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.internal.DaemonThreads;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.LogText;
import dev.lockstep.internal.redis.RedisAddress;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.WakeUpSubscription;
import dev.lockstep.lock.LockWaiters.Waiter;

/**
 * The lock protocol of one running {@link RedisLockService}: acquisition, waiting in the queue,
 * release with hand-over, and what the timer does every heartbeat (renew due leases, visit the
 * locks this instance waits for). Owns the command connection, the wake-up subscription and the
 * timer thread until {@link #close()}.
 */
final class LockEngine {

	private static final Logger logger = LoggerFactory.getLogger(LockEngine.class);

	final String keyPrefix;

	final String instance;

	final Duration leaseTime;

	private final Duration heartbeatInterval;

	final LockListener listener;

	/**
	 * Owner ids are '{@code <instance>:<start>.<sequence>}': {@code start} is drawn for each engine,
	 * that is each start of the service, and the sequence is the service's, never restarted. A
	 * service stopped and started again, or two processes restored from one checkpoint, never
	 * write an owner id an earlier holder still has.
	 */
	private final String start = RunIds.draw();

	private final AtomicLong sequence;

	final PendingReleases releases;

	final Duration commandTimeout;

	final ActiveLocks locks;

	/** By owner id: the locks this instance holds. */
	final Map<String, LockOwnership> active;

	final RedisScripts redis;

	final LockScripts scripts;

	final LockWaiters waiters;

	private final AsyncWaits asyncWaits = new AsyncWaits();

	private final LeaseWatchdog watchdog;

	final RedisReplies replies;

	final ScheduledExecutorService timer;

	private final WakeUpSubscription wakeUps;

	volatile boolean open = true;

	/** Replicas that must acknowledge an acquisition before it counts; 0 to not wait. */
	final int replicaAcknowledgements;

	LockEngine(RedisConnectionFactory connectionFactory, String keyPrefix, String instance, AtomicLong sequence,
			Duration leaseTime, Duration heartbeatInterval, Duration commandTimeout, int replicaAcknowledgements,
			LockListener listener) {
		this.sequence = sequence;
		this.replicaAcknowledgements = replicaAcknowledgements;
		this.keyPrefix = keyPrefix;
		this.instance = instance;
		this.leaseTime = leaseTime;
		this.heartbeatInterval = heartbeatInterval;
		this.commandTimeout = commandTimeout;
		this.listener = listener;
		this.redis = new RedisScripts(connectionFactory);
		this.scripts = new LockScripts(this.redis, keyPrefix + "wake:");
		this.scripts.preload(commandTimeout);
		this.replies = new RedisReplies(commandTimeout, RedisAddress.of(connectionFactory));
		this.releases = new PendingReleases(this.scripts, commandTimeout);
		this.locks = new ActiveLocks(this, commandTimeout, RedisAddress.of(connectionFactory));
		this.active = this.locks.active;
		this.watchdog = this.locks.watchdog();
		this.waiters = new LockWaiters(instance, this.locks::releaseStrayGrant);
		this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lockstep-timer"));
		// this instance's one subscription, to its own wake-up channel: every lock hands over to this
		// instance's waiters through it
		this.wakeUps = new WakeUpSubscription(connectionFactory, "lockstep-wake-ups", "waiters rely on heartbeats");
		this.wakeUps.listen(keyPrefix + "wake:" + instance, this.waiters);
		this.wakeUps.start(commandTimeout);
		long interval = heartbeatInterval.toNanos();
		this.timer.scheduleWithFixedDelay(this::tick, interval, interval, TimeUnit.NANOSECONDS);
	}

	/**
	 * Refuses new acquisitions and fails those without a thread under way ({@link AsyncWaits}), keeps
	 * renewing the locks still held for up to {@code holdersTimeout} while their holders finish, then
	 * stops renewing and waiting and closes the connections. A lock still held then is not released
	 * (its holder may still be working): it is reported lost, and frees itself when its lease ends.
	 */
	void close(Duration holdersTimeout) {
		this.open = false;
		this.asyncWaits.stopped();
		// threads blocked in a queue leave it and fail, before the connection they need to leave closes
		this.waiters.stopAll();
		awaitAttempts();
		if (!this.active.isEmpty()) {
			logger.info("Stopping with {} lock(s) held; renewing them for up to {} while their holders finish",
					this.active.size(), DurationText.of(holdersTimeout));
			long deadline = System.nanoTime() + holdersTimeout.toNanos();
			while (!this.active.isEmpty() && deadline - System.nanoTime() > 0) {
				try {
					Thread.sleep(Math.min(20, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
			for (LockOwnership lock : List.copyOf(this.active.values())) {
				this.locks.lost(lock, "the lock service stopped while it was still held; its lease is no longer renewed and "
						+ "ends within " + DurationText.of(Duration.ofNanos(lock.leaseNanos())));
			}
		}
		this.releases.awaitAll();
		this.timer.shutdownNow();
		this.wakeUps.close();
		// a holder's late release fails (its lease frees the lock) rather than open a connection nothing closes
		this.redis.closeForGood();
	}

	/** Waits, up to the command timeout, for the attempts under way to end (each needs a reply). */
	private void awaitAttempts() {
		long deadline = System.nanoTime() + this.commandTimeout.toNanos();
		while (!this.waiters.isEmpty() && deadline - System.nanoTime() > 0) {
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/** The handle, or null when the lock stayed held elsewhere for the whole wait. */
	@Nullable LockHandle lock(String key, Duration waitTime, @Nullable Duration explicitLease) {
		Assert.hasText(key, "Lock key must not be blank");
		DurationRules.notNegative("Wait time of lock '" + key + "'", waitTime);
		Assert.state(this.open, () -> "Lock service is not running; cannot lock '" + key + "'");
		LockOwnership reentered = ThreadLocks.heldBy(this, key);
		if (reentered != null && reentered.enter()) {
			return this.locks.hold(reentered);
		}
		return take(LockKeys.of(this.keyPrefix, key), waitTime, explicitLease);
	}

	/**
	 * A permit of {@code key} among {@code permits}, or null when all stayed taken for the whole
	 * wait. Not reentrant: every call takes a permit of its own.
	 */
	@Nullable LockHandle permit(String key, int permits, Duration waitTime, @Nullable Duration explicitLease) {
		Assert.hasText(key, "Lock key must not be blank");
		DurationRules.notNegative("Wait time of permits '" + key + "'", waitTime);
		Assert.state(this.open, () -> "Lock service is not running; cannot take a permit of '" + key + "'");
		return take(LockKeys.ofPermits(this.keyPrefix, key, permits), waitTime, explicitLease);
	}

	private @Nullable LockHandle take(LockKeys keys, Duration requestedWait, @Nullable Duration explicitLease) {
		Duration waitTime = DurationRules.capped(requestedWait);
		boolean watchdog = explicitLease == null;
		long leaseNanos = watchdog ? this.leaseTime.toNanos() : DurationRules.capped(explicitLease).toNanos();
		long start = System.nanoTime();
		while (true) {
			Acquisition acquisition = acquireOnce(keys, leaseNanos, watchdog, start, waitTime);
			if (acquisition.lock() != null) {
				LockHandle handle = this.locks.activate(acquisition.lock(), Duration.ofNanos(System.nanoTime() - start));
				if (!this.open) {
					// taken as the service stopped: nothing would renew it, so nobody may believe in it
					handle.close();
					throw stopped(keys);
				}
				return handle;
			}
			if (!acquisition.again() || start + waitTime.toNanos() - System.nanoTime() <= 0) {
				this.listener.notAcquired(keys.key(), Duration.ofNanos(System.nanoTime() - start));
				return null;
			}
		}
	}

	/**
	 * Like {@link #lock} without blocking a thread: the future completes with the handle, or null
	 * when the lock stayed held elsewhere for the whole wait. Not reentrant (a pipeline has no
	 * thread of its own), and the handle is not recorded as any thread's. Cancelling the future
	 * leaves the queue; a lock handed over meanwhile is released.
	 */
	CompletableFuture<@Nullable LockHandle> lockAsync(String key, Duration waitTime, @Nullable Duration explicitLease) {
		Assert.hasText(key, "Lock key must not be blank");
		DurationRules.notNegative("Wait time of lock '" + key + "'", waitTime);
		Assert.state(this.open, () -> "Lock service is not running; cannot lock '" + key + "'");
		return this.asyncWaits.track(key, new AsyncAcquisition(this, LockKeys.of(this.keyPrefix, key),
				DurationRules.capped(waitTime), (explicitLease != null) ? DurationRules.capped(explicitLease) : null).start());
	}

	/**
	 * One queueing under an owner id of its own: wake-ups, renewals and releases name that id and
	 * the grant's fencing token, so nothing meant for an earlier queueing of the same caller can
	 * complete or extend this one. A lock handed over from the queue counts as held only while
	 * its lease is provably the caller's: the grant lease may have run out while the waiter stalled
	 * (a pause, a slow wake-up) and the lock gone to the next waiter. Woken within a third of the
	 * grant lease of sending the queueing call, the waiter holds it at once, for the grant lease
	 * counted from that send (the grant cannot be older), and the watchdog extends it; woken later
	 * (or with an explicit lease, or replica acknowledgements to wait for), it first has Redis
	 * confirm the grant, owner and token checked, and extend it to the caller's lease, counted from
	 * when the confirmation was sent.
	 */
	private Acquisition acquireOnce(LockKeys keys, long leaseNanos, boolean watchdog, long start, Duration waitTime) {
		String sequence = nextSequence();
		String owner = this.instance + ":" + sequence;
		String entry = waitTime.isZero() ? "" : owner + ":" + millis(Math.min(leaseNanos, livenessNanos()))
				+ (keys.isPermits() ? ":" + keys.permits() : "");
		// registered even when it does not queue: a heartbeat that finds this owner holding before this
		// thread records the lock must know the owner is ours and under way, not one that went away
		Waiter waiter = this.waiters.register(keys, owner, sequence, entry);
		if (!this.open) {
			// stopping began after the caller's check: stopAll may have missed this registration
			this.waiters.remove(sequence, waiter);
			throw stopped(keys);
		}
		long sent = System.nanoTime();
		long confirmedLeaseNanos = leaseNanos;
		long token = 0;
		try {
			CompletableFuture<Void> releaseInFlight = entry.isEmpty() ? this.releases.of(keys.lock()) : null;
			token = attempt(keys, owner, leaseNanos, entry, waitTime);
			if (token == 0 && releaseInFlight != null && this.releases.awaited(releaseInFlight, keys)) {
				sent = System.nanoTime();
				token = attempt(keys, owner, leaseNanos, entry, waitTime);
			}
			if (token == 0 && !entry.isEmpty()) {
				token = awaitTurn(waiter, keys, owner, entry, start, waitTime);
				if (token == LockWaiters.REQUEUE) {
					return Acquisition.AGAIN;
				}
				if (token == 0) {
					return Acquisition.NONE;
				}
				long grantNanos = Math.min(leaseNanos, livenessNanos());
				if (watchdog && this.replicaAcknowledgements == 0 && System.nanoTime() - sent < grantNanos / 3) {
					// Woken soon after queueing: the grant was made after the queueing call was sent, with
					// the grant lease, so it is ours until at least that send time plus the grant lease. The
					// watchdog extends it to the full lease a third of the way in, owner and token checked.
					confirmedLeaseNanos = grantNanos;
				}
				else {
					sent = System.nanoTime();
					if (confirm(keys, owner, token, leaseNanos, waitTime) == 0) {
						logger.debug("Lock '{}' was handed to {} but the grant ran out before it was confirmed", LogText.of(keys.key()),
								owner);
						return Acquisition.AGAIN;
					}
				}
			}
			if (token == 0) {
				return Acquisition.NONE;
			}
			if (this.replicaAcknowledgements > 0) {
				awaitReplicas(keys, waitTime);
			}
			LockOwnership lock = new LockOwnership(keys, owner, token, leaseNanos, watchdog, sent, confirmedLeaseNanos);
			// active before the waiter is removed: a late or duplicated wake-up for this queueing must
			// find the owner holding, not take the grant for one made to nobody and release it
			this.active.put(owner, lock);
			return new Acquisition(lock, false);
		}
		catch (LockException ex) {
			abandon(keys, owner, entry, token);
			throw ex;
		}
		finally {
			this.waiters.remove(sequence, waiter);
		}
	}

	/** The part of a new owner id after the instance, unique within the service across its starts. */
	String nextSequence() {
		return this.start + "." + Long.toString(this.sequence.incrementAndGet(), 36);
	}

	static LockUnavailableException stopped(LockKeys keys) {
		return new LockUnavailableException("Lock service stopped while acquiring lock '" + LogText.of(keys.key()) + "'",
				null);
	}

	/**
	 * Waits until the configured number of replicas have the acquisition, so that a failover right
	 * after it does not promote a replica without it. Not acknowledged in time: not acquired (the
	 * caller's catch releases the lock).
	 */
	private void awaitReplicas(LockKeys keys, Duration waitTime) {
		long timeoutMillis = Math.max(1, this.commandTimeout.toMillis() / 2);
		long acknowledged = this.replies.await(this.redis.waitForReplicas(this.replicaAcknowledgements, timeoutMillis), keys,
				"waiting for replicas to acknowledge", waitTime);
		if (acknowledged < this.replicaAcknowledgements) {
			throw replicasMissing(keys, acknowledged, timeoutMillis);
		}
	}

	LockUnavailableException replicasMissing(LockKeys keys, long acknowledged, long timeoutMillis) {
		return new LockUnavailableException("Lock '" + LogText.of(keys.key()) + "' was taken but " + acknowledged + " of the "
				+ this.replicaAcknowledgements + " replicas required (lockstep.lock.replica-acknowledgements) "
				+ "acknowledged it within " + DurationText.of(Duration.ofMillis(timeoutMillis))
				+ "; it was released and counts as not acquired", null);
	}

	/** What this engine holds and waits for, and any key's state, for monitoring. */
	LockViews views() {
		return new LockViews(this.keyPrefix, this.active.values(), this.waiters, this.scripts, this.replies);
	}

	/** What one queueing gave: the lock, nothing, or nothing yet (queue again while the wait lasts). */
	record Acquisition(@Nullable LockOwnership lock, boolean again) {

		static final Acquisition NONE = new Acquisition(null, false);

		static final Acquisition AGAIN = new Acquisition(null, true);

	}

	private long confirm(LockKeys keys, String owner, long token, long leaseNanos, Duration waitTime) {
		return this.replies.await(this.scripts.confirm(keys, owner, token, millis(leaseNanos)), keys, "confirming",
				waitTime);
	}

	/** One acquire script: the token if taken, 0 if queued ({@code entry} non-empty) or not taken. */
	private long attempt(LockKeys keys, String owner, long leaseNanos, String entry, Duration waitTime) {
		CompletableFuture<Long> reply = this.scripts.acquire(keys, owner, millis(leaseNanos), entry, queueTtlMillis());
		return this.replies.await(reply, keys, "acquiring", waitTime);
	}

	/** The token once the lock is handed over, 0 when the wait ends first, {@link LockWaiters#REQUEUE} to queue again. */
	private long awaitTurn(Waiter waiter, LockKeys keys, String owner, String entry, long start, Duration waitTime) {
		try {
			waiter.queued();
			Long signal = waiter.await(start + waitTime.toNanos() - System.nanoTime());
			if (signal != null && signal == LockWaiters.STOPPED) {
				// leave the queue while the connection is still open; a grant made meanwhile is released
				long granted = this.replies.await(this.scripts.cancel(keys, owner, entry), keys, "leaving the queue of",
						waitTime);
				if (granted > 0) {
					this.replies.await(this.scripts.release(keys, owner, granted), keys, "releasing", waitTime);
				}
				throw stopped(keys);
			}
			if (signal == null) {
				// Out of time; if the lock was handed over meanwhile, it is ours to keep (once confirmed).
				return this.replies.await(this.scripts.cancel(keys, owner, entry), keys, "leaving the queue of", waitTime);
			}
			return signal;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw RedisReplies.interrupted(keys, ex);
		}
	}

	/**
	 * Undoes, in the background, whatever a failed or interrupted attempt may have left in Redis:
	 * its queue entry, and the lock if it was taken ({@code token}, when known) or handed over.
	 */
	void abandon(LockKeys keys, String owner, String entry, long token) {
		if (entry.isEmpty() || token > 0) {
			// the single attempt's reply never came, or the token is known: release whatever the owner holds
			whenDone(this.scripts.release(keys, owner, token), keys);
			return;
		}
		whenDone(this.scripts.cancel(keys, owner, entry).thenCompose((heldToken) -> (heldToken > 0)
				? this.scripts.release(keys, owner, heldToken) : CompletableFuture.completedFuture(0L)), keys);
	}

	private static void whenDone(CompletableFuture<Long> cleanup, LockKeys keys) {
		cleanup
			.whenComplete((released, error) -> {
				if (error != null) {
					logger.debug("Cleaning up after a failed attempt on lock '{}' failed", LogText.of(keys.key()), error);
				}
			});
	}

	/** A heartbeat now, on the timer thread as every heartbeat; for tests that choose its moment. */
	void heartbeatNow() {
		this.timer.execute(this::tick);
	}

	private void tick() {
		try {
			this.watchdog.tick();
			this.waiters.heartbeat(this.scripts, millis(livenessNanos()), queueTtlMillis(), this.timer,
					this.heartbeatInterval.toMillis());
		}
		catch (RuntimeException ex) {
			logger.warn("Lockstep timer tick failed", ex);
		}
	}

	/** How long a waiting instance counts as alive after a heartbeat; also the first lease of a handed-over lock. */
	long livenessNanos() {
		return this.heartbeatInterval.toNanos() * 5;
	}

	long queueTtlMillis() {
		return millis(this.heartbeatInterval.toNanos() * 20);
	}

	static long millis(long nanos) {
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos));
	}

}
