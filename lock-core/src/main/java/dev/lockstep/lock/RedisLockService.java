package dev.lockstep.lock;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

import dev.lockstep.LockException;
import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.lock.LockWaiters.Waiter;
import dev.lockstep.redis.RedisScripts;

/**
 * The {@link LockService} on Redis. One instance per application: it holds one command
 * connection, one subscription for wake-ups and one timer thread for all its locks.
 *
 * <p>Settings are fixed once the service has started.
 */
public final class RedisLockService implements LockService, InitializingBean, SmartLifecycle {

	/** The key prefix used unless one is set. */
	public static final String DEFAULT_KEY_PREFIX = "lockstep:";

	private static final Logger logger = LoggerFactory.getLogger(RedisLockService.class);

	private static final LockListener NO_LISTENER = new LockListener() {
	};

	private final RedisConnectionFactory connectionFactory;

	private final String instance = newInstanceId();

	private final AtomicLong sequence = new AtomicLong();

	private final Map<String, HeldLock> active = new ConcurrentHashMap<>();

	private String keyPrefix = DEFAULT_KEY_PREFIX;

	private Duration leaseTime = Duration.ofSeconds(30);

	private Duration heartbeatInterval = Duration.ofMillis(500);

	private Duration commandTimeout = Duration.ofSeconds(5);

	private LockListener listener = NO_LISTENER;

	private volatile boolean running;

	private @Nullable RedisScripts redis;

	private @Nullable LockScripts scripts;

	private @Nullable LockWaiters waiters;

	private @Nullable LeaseWatchdog watchdog;

	private @Nullable ScheduledExecutorService timer;

	private @Nullable WakeUpChannel wakeUps;

	private @Nullable RedisReplies replies;

	public RedisLockService(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		this.connectionFactory = connectionFactory;
	}

	/** Prefix of every Redis key and channel this service uses; default {@value #DEFAULT_KEY_PREFIX}. */
	public void setKeyPrefix(String keyPrefix) {
		Assert.hasText(keyPrefix, "Key prefix must not be blank");
		Assert.isTrue(keyPrefix.indexOf('{') < 0 && keyPrefix.indexOf('}') < 0,
				() -> "Key prefix must not contain '{' or '}' (they mark the cluster hash tag): " + keyPrefix);
		this.keyPrefix = keyPrefix;
	}

	/** Lease of locks without an explicit lease, renewed by the watchdog every third of it; default 30s. */
	public void setLeaseTime(Duration leaseTime) {
		Assert.isTrue(leaseTime.compareTo(Duration.ofSeconds(1)) >= 0, () -> "Lease time must be at least 1s: " + leaseTime);
		this.leaseTime = leaseTime;
	}

	/**
	 * How often this instance renews due leases and visits the locks it waits for; a waiter's
	 * instance that misses five in a row is dropped from the queues. Default 500ms.
	 */
	public void setHeartbeatInterval(Duration heartbeatInterval) {
		Assert.isTrue(heartbeatInterval.toMillis() >= 10, () -> "Heartbeat interval must be at least 10ms: " + heartbeatInterval);
		this.heartbeatInterval = heartbeatInterval;
	}

	/** Longest wait for one Redis reply before failing with {@link LockUnavailableException}; default 5s. */
	public void setCommandTimeout(Duration commandTimeout) {
		Assert.isTrue(commandTimeout.toMillis() > 0, () -> "Command timeout must be positive: " + commandTimeout);
		this.commandTimeout = commandTimeout;
	}

	/** Receives lock events; default none. */
	public void setListener(LockListener listener) {
		Assert.notNull(listener, "LockListener must not be null");
		this.listener = listener;
	}

	/** The lease of locks without an explicit lease. */
	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	/** The prefix of every Redis key this service writes. */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/** This instance's id, the first part of every owner id it writes to Redis. */
	public String getInstanceId() {
		return this.instance;
	}

	@Override
	public void afterPropertiesSet() {
		start();
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		RedisScripts redis = new RedisScripts(this.connectionFactory);
		LockScripts scripts = new LockScripts(redis, channelPrefix());
		LockWaiters waiters = new LockWaiters(this.instance, this::releaseStrayGrant);
		LeaseWatchdog watchdog = new LeaseWatchdog(scripts, this::lost);
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "lockstep-timer");
			thread.setDaemon(true);
			return thread;
		});
		WakeUpChannel wakeUps = new WakeUpChannel(this.connectionFactory, channelPrefix() + this.instance, waiters,
				this.commandTimeout);
		long interval = this.heartbeatInterval.toNanos();
		timer.scheduleWithFixedDelay(this::tick, interval, interval, TimeUnit.NANOSECONDS);
		this.redis = redis;
		this.scripts = scripts;
		this.waiters = waiters;
		this.watchdog = watchdog;
		this.wakeUps = wakeUps;
		this.replies = new RedisReplies(this.commandTimeout);
		this.timer = timer;
		this.running = true;
	}

	/**
	 * Stops renewing and waiting and closes the connections. Locks still held are not released
	 * (their holders may still be working); they free themselves when their leases end.
	 */
	@Override
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		if (!this.active.isEmpty()) {
			logger.info("Stopping with {} lock(s) still held; they free themselves when their leases end", this.active.size());
		}
		this.timer.shutdownNow();
		this.wakeUps.close();
		this.redis.close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Stops after the schedulers (so guarded jobs can release) and before the connection factory. */
	@Override
	public int getPhase() {
		return 1000;
	}

	@Override
	public LockHandle acquire(String key, Duration waitTime) {
		LockHandle handle = lock(key, waitTime, null);
		if (handle == null) {
			throw new LockNotAcquiredException(notAcquiredMessage(key, waitTime));
		}
		return handle;
	}

	@Override
	public Optional<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime) {
		Assert.isTrue(leaseTime.toMillis() > 0, () -> "Lease time of lock '" + key + "' must be positive: " + leaseTime);
		return Optional.ofNullable(lock(key, waitTime, leaseTime));
	}

	@Override
	public <T> T callLocked(String key, Duration waitTime, Callable<T> action) throws Exception {
		try (LockHandle handle = acquire(key, waitTime)) {
			return action.call();
		}
	}

	@Override
	public void runLocked(String key, Duration waitTime, Runnable action) {
		try (LockHandle handle = acquire(key, waitTime)) {
			action.run();
		}
	}

	static String notAcquiredMessage(String key, Duration waitTime) {
		return "Lock '" + key + "' is still held elsewhere after waiting " + format(waitTime);
	}

	static String format(Duration duration) {
		return DurationText.of(duration);
	}

	private @Nullable LockHandle lock(String key, Duration waitTime, @Nullable Duration explicitLease) {
		Assert.hasText(key, "Lock key must not be blank");
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of lock '" + key + "' must not be negative: " + waitTime);
		Assert.state(this.running, () -> "Lock service is not running; cannot lock '" + key + "'");
		HeldLock reentered = ThreadLocks.heldBy(this, key);
		if (reentered != null && reentered.enter()) {
			return hold(reentered);
		}
		LockKeys keys = LockKeys.of(this.keyPrefix, key);
		boolean watchdog = explicitLease == null;
		long leaseNanos = watchdog ? this.leaseTime.toNanos() : explicitLease.toNanos();
		String sequence = Long.toString(this.sequence.incrementAndGet(), 36);
		String owner = this.instance + ":" + sequence;
		long grantLeaseNanos = watchdog ? Math.min(leaseNanos, livenessNanos()) : leaseNanos;
		String entry = waitTime.isZero() ? "" : owner + ":" + millis(grantLeaseNanos);
		Waiter waiter = entry.isEmpty() ? null : this.waiters.register(keys, owner, sequence, entry);
		long start = System.nanoTime();
		try {
			CompletableFuture<Long> attempt = this.scripts.acquire(keys, owner, millis(leaseNanos), entry, queueTtlMillis());
			long token = this.replies.await(attempt, keys, "acquiring", waitTime);
			long confirmedFrom = start;
			long confirmedLease = leaseNanos;
			if (token == 0 && waiter != null) {
				waiter.queued();
				token = awaitTurn(waiter, keys, owner, entry, start, waitTime);
				confirmedFrom = System.nanoTime();
				confirmedLease = grantLeaseNanos;
			}
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			if (token == 0) {
				notifyListener((listener) -> listener.notAcquired(key, waited));
				return null;
			}
			HeldLock lock = new HeldLock(keys, owner, token, leaseNanos, watchdog, confirmedFrom, confirmedLease);
			this.active.put(owner, lock);
			if (watchdog) {
				this.watchdog.watch(lock);
			}
			long acquiredToken = token;
			notifyListener((listener) -> listener.acquired(key, acquiredToken, waited));
			return hold(lock);
		}
		catch (LockException ex) {
			abandon(keys, owner, entry);
			throw ex;
		}
		finally {
			if (waiter != null) {
				this.waiters.remove(sequence, waiter);
			}
		}
	}

	private long awaitTurn(Waiter waiter, LockKeys keys, String owner, String entry, long start, Duration waitTime) {
		try {
			Long token = waiter.await(start + waitTime.toNanos() - System.nanoTime());
			if (token != null) {
				return token;
			}
			// Out of time; if the lock was handed over meanwhile, it is ours to keep.
			return this.replies.await(this.scripts.cancel(keys, owner, entry), keys, "leaving the queue of", waitTime);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw RedisReplies.interrupted(keys, ex);
		}
	}

	private LockHold hold(HeldLock lock) {
		LockHold hold = new LockHold(this, lock);
		ThreadLocks.push(hold);
		return hold;
	}

	/** The last hold on {@code lock} was closed. */
	void exit(HeldLock lock) {
		if (!lock.exit() || !lock.markReleased()) {
			return;
		}
		this.active.remove(lock.owner(), lock);
		this.watchdog.unwatch(lock);
		String key = lock.keys().key();
		try {
			if (this.replies.await(this.scripts.release(lock.keys(), lock.owner()), lock.keys(), "releasing", null) == 0) {
				logger.warn("Lock '{}' (fencing token {}) had already expired in Redis when it was released; "
						+ "its lease was too short for the work it protected", key, lock.fencingToken());
			}
		}
		catch (LockException ex) {
			logger.warn("Could not release lock '{}'; it frees itself when its lease ends: {}", key, ex.getMessage());
		}
		Duration held = Duration.ofNanos(System.nanoTime() - lock.acquiredAtNanos());
		notifyListener((listener) -> listener.released(key, held));
	}

	private void lost(HeldLock lock, String reason) {
		if (lock.markLost()) {
			this.active.remove(lock.owner(), lock);
			logger.error("Lost lock '{}' (fencing token {}): {}", lock.keys().key(), lock.fencingToken(), reason);
			LockLostEvent event = new LockLostEvent(lock.keys().key(), lock.fencingToken(), reason);
			notifyListener((listener) -> listener.lost(event));
		}
	}

	/** Listeners must not break locking: a failing one is logged and otherwise ignored. */
	private void notifyListener(java.util.function.Consumer<LockListener> event) {
		try {
			event.accept(this.listener);
		}
		catch (RuntimeException ex) {
			logger.warn("LockListener {} failed", this.listener, ex);
		}
	}

	/** A lock was handed to a waiter of this instance that had already gone: pass it on. */
	private void releaseStrayGrant(String lockKey, String owner) {
		if (!this.active.containsKey(owner)) {
			this.scripts.release(LockKeys.ofLock(lockKey, lockKey), owner);
		}
	}

	/** Undoes, in the background, whatever a failed or interrupted attempt may have left in Redis. */
	private void abandon(LockKeys keys, String owner, String entry) {
		CompletableFuture<Long> cancelled = entry.isEmpty() ? CompletableFuture.completedFuture(1L)
				: this.scripts.cancel(keys, owner, entry);
		cancelled.thenCompose((token) -> (token > 0) ? this.scripts.release(keys, owner) : CompletableFuture.completedFuture(0L))
			.whenComplete((released, error) -> {
				if (error != null) {
					logger.debug("Cleaning up after a failed attempt on lock '{}' failed", keys.key(), error);
				}
			});
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

	private String channelPrefix() {
		return this.keyPrefix + "wake:";
	}

	/** How long a waiting instance counts as alive after a heartbeat; also the first lease of a handed-over lock. */
	private long livenessNanos() {
		return this.heartbeatInterval.toNanos() * 5;
	}

	private long queueTtlMillis() {
		return millis(this.heartbeatInterval.toNanos() * 20);
	}

	private static long millis(long nanos) {
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos));
	}

	private static String newInstanceId() {
		return Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36);
	}

}
