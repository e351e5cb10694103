package dev.lockstep.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;

import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.LockSnapshot;
import dev.lockstep.LockStateRegistry;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.IsolatedListener;
import dev.lockstep.internal.LifecyclePhases;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.internal.NotAcquired;

/**
 * The {@link LockService} on Redis. One instance per application: it holds one command
 * connection, one subscription for wake-ups and one timer thread for all its locks.
 *
 * <p>Settings are fixed once the service has started.
 */
public final class RedisLockService implements LockService, LockStateRegistry, InitializingBean, SmartLifecycle {

	/** The key prefix used unless one is set. */
	public static final String DEFAULT_KEY_PREFIX = NamingRules.DEFAULT_KEY_PREFIX;

	private final RedisConnectionFactory connectionFactory;

	/** Four random base-36 characters, new with each service: no two runs share an owner id. */
	private final String run = RunIds.draw();

	/** The sequence of owner ids, kept across stop and start (see {@link LockEngine}). */
	private final AtomicLong sequence = new AtomicLong();

	private String instance = NamingRules.defaultInstanceId() + "." + this.run;

	private String keyPrefix = DEFAULT_KEY_PREFIX;

	private Duration leaseTime = Duration.ofSeconds(30);

	private Duration heartbeatInterval = Duration.ofMillis(500);

	private Duration commandTimeout = Duration.ofSeconds(5);

	private int replicaAcknowledgements;

	private Duration shutdownTimeout = Duration.ofSeconds(10);

	private LockListener listener = new LockListener() {
	};

	private volatile @Nullable LockEngine engine;

	public RedisLockService(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		this.connectionFactory = connectionFactory;
	}

	/**
	 * The name of this instance of the application ({@code lockstep.instance-id}), shared with its
	 * job guard and serial queue; default host name, process id and three random characters. The
	 * service's own id is this name, a '.' and four random characters drawn when the service is
	 * made, so that a restarted process with the same name never reuses an owner id of its earlier
	 * run.
	 */
	public void setInstanceId(String instanceId) {
		this.instance = NamingRules.instanceId("Instance id", instanceId) + "." + this.run;
	}

	/** Prefix of every Redis key and channel this service uses; default {@value #DEFAULT_KEY_PREFIX}. */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = NamingRules.keyPrefix("Key prefix", keyPrefix);
	}

	/** Lease of locks without an explicit lease, renewed by the watchdog every third of it; default 30s. */
	public void setLeaseTime(Duration leaseTime) {
		this.leaseTime = DurationRules.renewedLease("Lease time", leaseTime);
	}

	/**
	 * How often this instance renews due leases and visits the locks it waits for; a waiter's
	 * instance that misses five in a row is dropped from the queues. Default 500ms.
	 */
	public void setHeartbeatInterval(Duration heartbeatInterval) {
		this.heartbeatInterval = DurationRules.atLeast("Heartbeat interval", heartbeatInterval,
				DurationRules.SHORTEST_HEARTBEAT);
	}

	/**
	 * How long {@link #stop()} keeps renewing the locks still held while their holders finish;
	 * locks held after it are reported lost. Default 10s.
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = DurationRules.notNegative("Shutdown timeout", shutdownTimeout);
	}

	/**
	 * How many replicas must acknowledge an acquisition (Redis {@code WAIT}, for up to half the
	 * command timeout) before it counts; one not acknowledged in time is released and reported as
	 * {@link dev.lockstep.LockUnavailableException}. Narrows the window in which a failover loses a
	 * lock just taken. 0 (the default) does not wait. Standalone and Sentinel only. While a WAIT is
	 * pending, other commands on the shared connection wait behind it.
	 */
	public void setReplicaAcknowledgements(int replicaAcknowledgements) {
		Assert.isTrue(replicaAcknowledgements >= 0,
				() -> "Replica acknowledgements must not be negative: " + replicaAcknowledgements);
		this.replicaAcknowledgements = replicaAcknowledgements;
	}

	/** Longest wait for one Redis reply before failing with {@link LockUnavailableException}; default 5s. */
	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = DurationRules.positive("Command timeout", commandTimeout);
	}

	/** Receives lock events; default none. */
	public void setListener(LockListener listener) {
		Assert.notNull(listener, "LockListener must not be null");
		this.listener = IsolatedListener.of(listener);
	}

	/** The lease of locks without an explicit lease. */
	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	/** The prefix of every Redis key this service writes. */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * This service's id, the first part of every owner id it writes to Redis: the instance's name
	 * (see {@link #setInstanceId}), a '.' and four random characters.
	 */
	public String getInstanceId() {
		return this.instance;
	}

	/** The same as {@link #getInstanceId()}. */
	@Override
	public String instanceId() {
		return this.instance;
	}

	/** The locks this service holds now, oldest first; for monitoring (see {@link LockSnapshot}). */
	@Override
	public List<LockSnapshot.Held> heldLocks() {
		return running().views().held();
	}

	/**
	 * The calls of this service waiting in a lock's queue now, longest waiting first, with their
	 * place in the queue (one read of Redis per key waited on); for monitoring.
	 */
	@Override
	public List<LockSnapshot.Waiting> waitingCalls() {
		return running().views().waiting();
	}

	/**
	 * {@code key} as Redis holds it now, whichever instance holds it: the holder, its token and
	 * lease left, and the waiters in order (one script that only reads); for monitoring.
	 * @throws LockUnavailableException when Redis cannot be read
	 */
	@Override
	public LockSnapshot.KeyState keyState(String key) {
		Assert.hasText(key, "Lock key must not be blank");
		return running().views().keyState(key);
	}

	@Override
	public boolean releaseHeldBy(String key, String holderInstance, long fencingToken) {
		Assert.hasText(key, "Lock key must not be blank");
		Assert.hasText(holderInstance, "Holder instance must not be blank");
		return running().views().releaseHeldBy(key, holderInstance, fencingToken);
	}

	@Override
	public void afterPropertiesSet() {
		start();
	}

	@Override
	public synchronized void start() {
		if (this.engine == null) {
			try {
				DurationRules.heartbeatUnderAThirdOfLease("lockstep.heartbeat-interval",
						this.heartbeatInterval, "lockstep.lock.lease-time", this.leaseTime);
			}
			catch (IllegalArgumentException ex) {
				// Boot's properties refuse this at binding; a service built by hand meets it here
				throw new IllegalStateException(ex.getMessage(), ex);
			}
			if (this.replicaAcknowledgements > 0 && this.connectionFactory instanceof LettuceConnectionFactory lettuce
					&& lettuce.isClusterAware()) {
				throw new IllegalStateException("lockstep.lock.replica-acknowledgements (" + this.replicaAcknowledgements
						+ ") is not supported on a Redis Cluster: WAIT cannot be sent to the master of each key; set it to 0");
			}
			this.engine = new LockEngine(this.connectionFactory, this.keyPrefix, this.instance, this.sequence, this.leaseTime,
					this.heartbeatInterval, this.commandTimeout, this.replicaAcknowledgements, this.listener);
		}
	}

	/** Stops, after the locks still held are released or the shutdown timeout passes; see {@link LockEngine#close}. */
	@Override
	public synchronized void stop() {
		LockEngine stopping = this.engine;
		this.engine = null;
		if (stopping != null) {
			stopping.close(this.shutdownTimeout);
		}
	}

	@Override
	public boolean isRunning() {
		return this.engine != null;
	}

	/** Stops after the schedulers (so guarded jobs can release) and before the connection factory. */
	@Override
	public int getPhase() {
		return LifecyclePhases.LOCK_SERVICE;
	}

	@Override
	public LockHandle acquire(String key, Duration waitTime) {
		LockHandle handle = lock(key, waitTime, null);
		if (handle == null) {
			throw new LockNotAcquiredException(NotAcquired.lockStillHeld(key, waitTime));
		}
		return handle;
	}

	@Override
	public Optional<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime) {
		DurationRules.positive("Lease time of lock '" + key + "'", leaseTime);
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

	@Override
	public LockHandle acquirePermit(String key, int permits, Duration waitTime) {
		if (checkedPermits(key, permits) == 1) {
			return acquire(key, waitTime);
		}
		LockHandle handle = running(key).permit(key, permits, waitTime, null);
		if (handle == null) {
			throw new LockNotAcquiredException(NotAcquired.permitsTaken(key, permits, waitTime));
		}
		return handle;
	}

	@Override
	public Optional<LockHandle> tryAcquirePermit(String key, int permits, Duration waitTime, Duration leaseTime) {
		if (checkedPermits(key, permits) == 1) {
			return tryAcquire(key, waitTime, leaseTime);
		}
		DurationRules.positive("Lease time of permits '" + key + "'", leaseTime);
		return Optional.ofNullable(running(key).permit(key, permits, waitTime, leaseTime));
	}

	private static int checkedPermits(String key, int permits) {
		Assert.isTrue(permits >= 1, () -> "Permits of '" + key + "' must be at least 1: " + permits);
		return permits;
	}

	/**
	 * How many hold a permit of {@code key} now, whichever instance, and how many wait (one script
	 * that only reads); for monitoring.
	 * @throws LockUnavailableException when Redis cannot be read
	 */
	@Override
	public LockSnapshot.PermitState permitState(String key) {
		Assert.hasText(key, "Lock key must not be blank");
		return running().views().permitState(key);
	}

	private LockEngine running(String key) {
		LockEngine current = this.engine;
		Assert.state(current != null, () -> "Lock service is not running; cannot take a permit of '" + key + "'");
		return current;
	}

	private @Nullable LockHandle lock(String key, Duration waitTime, @Nullable Duration explicitLease) {
		LockEngine current = this.engine;
		Assert.state(current != null, () -> "Lock service is not running; cannot lock '" + key + "'");
		return current.lock(key, waitTime, explicitLease);
	}

	/** See {@link LockEngine#lockAsync}; for {@link RedisReactiveLockService}. */
	CompletableFuture<@Nullable LockHandle> lockAsync(String key, Duration waitTime,
			@Nullable Duration explicitLease) {
		LockEngine current = this.engine;
		Assert.state(current != null, () -> "Lock service is not running; cannot lock '" + key + "'");
		return current.lockAsync(key, waitTime, explicitLease);
	}

	/** A heartbeat now (see {@link LockEngine#heartbeatNow}); for tests that choose its moment. */
	void heartbeatNow() {
		running().heartbeatNow();
	}

	private LockEngine running() {
		LockEngine current = this.engine;
		Assert.state(current != null, "Lock service is not running");
		return current;
	}

}
