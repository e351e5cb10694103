package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.lockstep.LockHandle;
import dev.lockstep.lock.LockEngine.Acquisition;
import dev.lockstep.lock.LockWaiters.Waiter;

/**
 * One call of {@link LockEngine#lockAsync}: the steps of {@link LockEngine#lock} (queue, wait for
 * the hand-over, confirm a late grant, wait for replicas), each continued where the previous
 * reply or wake-up completes, so that no thread waits. The protocol, its owner ids and its
 * clean-up are the blocking path's; only the waiting differs.
 */
final class AsyncAcquisition {

	private final LockEngine engine;

	private final LockKeys keys;

	private final Duration waitTime;

	private final boolean watchdog;

	private final long leaseNanos;

	private final long start = System.nanoTime();

	private final CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();

	AsyncAcquisition(LockEngine engine, LockKeys keys, Duration waitTime, @Nullable Duration explicitLease) {
		this.engine = engine;
		this.keys = keys;
		this.waitTime = waitTime;
		this.watchdog = explicitLease == null;
		this.leaseNanos = (explicitLease == null) ? engine.leaseTime.toNanos() : explicitLease.toNanos();
	}

	CompletableFuture<@Nullable LockHandle> start() {
		next();
		return this.result;
	}

	private void next() {
		if (this.result.isDone()) {
			return;
		}
		CompletableFuture<Acquisition> once;
		try {
			once = new Queueing().run();
		}
		catch (RuntimeException ex) {
			this.result.completeExceptionally(ex);
			return;
		}
		once.whenComplete((acquisition, error) -> {
			if (error != null) {
				this.result.completeExceptionally(unwrap(error));
			}
			else if (acquisition.lock() != null) {
				deliver(acquisition.lock());
			}
			else if (!acquisition.again() || this.result.isDone()
					|| this.start + this.waitTime.toNanos() - System.nanoTime() <= 0) {
				this.engine.listener.notAcquired(this.keys.key(), waited());
				this.result.complete(null);
			}
			else {
				next();
			}
		});
	}

	/** Hands the lock to the caller; one who gave up meanwhile never sees it, so it is released. */
	private void deliver(LockOwnership lock) {
		LockHandle handle;
		try {
			handle = this.engine.locks.activate(lock, waited(), false);
		}
		catch (Throwable ex) {
			this.result.completeExceptionally(ex);
			return;
		}
		if (!this.result.complete(handle)) {
			handle.close();
		}
	}

	private Duration waited() {
		return Duration.ofNanos(System.nanoTime() - this.start);
	}

	private void schedule(long nanos, Runnable task) {
		try {
			this.engine.timer.schedule(task, Math.max(0, nanos), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopping: go on at once, the next call to Redis fails
			task.run();
		}
	}

	private static Throwable unwrap(Throwable error) {
		return (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
	}

	/** One queueing under an owner id of its own, as {@code LockEngine.acquireOnce}. */
	private final class Queueing {

		private final String sequence = AsyncAcquisition.this.engine.nextSequence();

		private final String owner = AsyncAcquisition.this.engine.instance + ":" + this.sequence;

		private final String entry;

		private @Nullable Waiter waiter;

		private volatile long sent;

		private volatile long confirmedLeaseNanos = AsyncAcquisition.this.leaseNanos;

		private volatile long token;

		Queueing() {
			LockEngine engine = AsyncAcquisition.this.engine;
			this.entry = AsyncAcquisition.this.waitTime.isZero() ? ""
					: this.owner + ":" + LockEngine.millis(Math.min(AsyncAcquisition.this.leaseNanos, engine.livenessNanos()));
		}

		CompletableFuture<Acquisition> run() {
			LockEngine engine = AsyncAcquisition.this.engine;
			LockKeys keys = AsyncAcquisition.this.keys;
			// registered even when it does not queue, as in acquireOnce
			Waiter registered = engine.waiters.register(keys, this.owner, this.sequence, this.entry);
			this.waiter = registered;
			this.sent = System.nanoTime();
			CompletableFuture<Void> releaseInFlight = this.entry.isEmpty() ? engine.releases.of(keys.lock()) : null;
			CompletableFuture<Acquisition> done = attempt()
				.thenCompose((taken) -> (taken == 0 && releaseInFlight != null) ? afterRelease(releaseInFlight)
						: CompletableFuture.completedFuture(taken))
				.thenCompose(this::afterAttempt);
			return done.whenComplete((acquisition, error) -> {
				if (error != null) {
					engine.abandon(keys, this.owner, this.entry, this.token);
				}
				engine.waiters.remove(this.sequence, registered);
			});
		}

		private CompletableFuture<Long> attempt() {
			LockEngine engine = AsyncAcquisition.this.engine;
			return reply(engine.scripts.acquire(AsyncAcquisition.this.keys, this.owner,
					LockEngine.millis(AsyncAcquisition.this.leaseNanos), this.entry, engine.queueTtlMillis()), "acquiring")
				.thenApply((taken) -> {
					this.token = taken;
					return taken;
				});
		}

		/** A release of this instance was on its way: once it arrives, try again (see PendingReleases#awaited). */
		private CompletableFuture<Long> afterRelease(CompletableFuture<Void> release) {
			CompletableFuture<Boolean> arrived = new CompletableFuture<>();
			release.whenComplete((done, error) -> arrived.complete(error == null));
			schedule(AsyncAcquisition.this.engine.commandTimeout.toNanos(), () -> arrived.complete(false));
			return arrived.thenCompose((ok) -> {
				if (!ok) {
					return CompletableFuture.completedFuture(0L);
				}
				this.sent = System.nanoTime();
				return attempt();
			});
		}

		private CompletableFuture<Acquisition> afterAttempt(long taken) {
			Waiter registered = this.waiter;
			if (taken == 0 && !this.entry.isEmpty() && registered != null) {
				return awaitTurn(registered).thenCompose(this::afterTurn);
			}
			if (taken == 0) {
				return CompletableFuture.completedFuture(Acquisition.NONE);
			}
			return held();
		}

		private CompletableFuture<Acquisition> afterTurn(long signal) {
			LockEngine engine = AsyncAcquisition.this.engine;
			if (signal == LockWaiters.REQUEUE) {
				return CompletableFuture.completedFuture(Acquisition.AGAIN);
			}
			if (signal == 0) {
				return CompletableFuture.completedFuture(Acquisition.NONE);
			}
			this.token = signal;
			long grantNanos = Math.min(AsyncAcquisition.this.leaseNanos, engine.livenessNanos());
			if (AsyncAcquisition.this.watchdog && engine.replicaAcknowledgements == 0
					&& System.nanoTime() - this.sent < grantNanos / 3) {
				// woken soon after queueing: the grant is ours for the grant lease from the send (see acquireOnce)
				this.confirmedLeaseNanos = grantNanos;
				return held();
			}
			this.sent = System.nanoTime();
			return reply(engine.scripts.confirm(AsyncAcquisition.this.keys, this.owner, signal,
					LockEngine.millis(AsyncAcquisition.this.leaseNanos)), "confirming")
				.thenCompose((confirmed) -> (confirmed == 0) ? CompletableFuture.completedFuture(Acquisition.AGAIN) : held());
		}

		/**
		 * The token once the lock is handed over, {@link LockWaiters#REQUEUE}, or what leaving the
		 * queue says (a token if it was handed over meanwhile, else 0) once the wait is over or the
		 * caller gave up.
		 */
		private CompletableFuture<Long> awaitTurn(Waiter waiter) {
			waiter.queued();
			CompletableFuture<@Nullable Long> turn = new CompletableFuture<>();
			waiter.signal().whenComplete((signal, error) -> {
				if (error != null) {
					turn.completeExceptionally(error);
				}
				else {
					turn.complete(signal);
				}
			});
			schedule(AsyncAcquisition.this.start + AsyncAcquisition.this.waitTime.toNanos() - System.nanoTime(),
					() -> turn.complete(null));
			AsyncAcquisition.this.result.whenComplete((handle, error) -> turn.complete(null));
			// stopped: the result has failed already (AsyncWaits); leave the queue as when the caller gives up
			return turn.thenCompose((signal) -> (signal != null && signal != LockWaiters.STOPPED)
					? CompletableFuture.completedFuture(signal)
					: reply(AsyncAcquisition.this.engine.scripts.cancel(AsyncAcquisition.this.keys, this.owner, this.entry),
							"leaving the queue of"));
		}

		private CompletableFuture<Acquisition> held() {
			LockEngine engine = AsyncAcquisition.this.engine;
			CompletableFuture<Void> replicas = CompletableFuture.completedFuture(null);
			if (engine.replicaAcknowledgements > 0) {
				long timeoutMillis = Math.max(1, engine.commandTimeout.toMillis() / 2);
				replicas = reply(engine.redis.waitForReplicas(engine.replicaAcknowledgements, timeoutMillis),
						"waiting for replicas to acknowledge")
					.thenAccept((acknowledged) -> {
						if (acknowledged < engine.replicaAcknowledgements) {
							throw engine.replicasMissing(AsyncAcquisition.this.keys, acknowledged, timeoutMillis);
						}
					});
			}
			return replicas.thenApply((ignored) -> {
				LockOwnership lock = new LockOwnership(AsyncAcquisition.this.keys, this.owner, this.token,
						AsyncAcquisition.this.leaseNanos, AsyncAcquisition.this.watchdog, this.sent, this.confirmedLeaseNanos);
				// active before the waiter is removed, as in acquireOnce
				engine.active.put(this.owner, lock);
				return new Acquisition(lock, false);
			});
		}

		private <T> CompletableFuture<T> reply(CompletableFuture<T> reply, String doing) {
			LockEngine engine = AsyncAcquisition.this.engine;
			return engine.replies.async(reply, AsyncAcquisition.this.keys, doing, AsyncAcquisition.this.waitTime,
					engine.timer);
		}

	}

}
