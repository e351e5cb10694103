package dev.lockstep.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.util.Assert;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.ReactiveLockService;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.NotAcquired;

/**
 * The {@link ReactiveLockService} on a {@link RedisLockService}: the same locks, queues, tokens
 * and watchdog, waited for without a thread. The handle is emitted on Reactor's parallel
 * scheduler, never on a Redis client thread (which must not wait for its own replies), and a
 * handle acquired for a subscriber that cancelled before it came is released.
 */
public final class RedisReactiveLockService implements ReactiveLockService {

	private final RedisLockService lockService;

	public RedisReactiveLockService(RedisLockService lockService) {
		Assert.notNull(lockService, "RedisLockService must not be null");
		this.lockService = lockService;
	}

	@Override
	public Mono<LockHandle> acquire(String key, Duration waitTime) {
		return lock(key, waitTime, null)
			.switchIfEmpty(Mono.error(() -> new LockNotAcquiredException(NotAcquired.lockStillHeld(key, waitTime))));
	}

	@Override
	public Mono<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime) {
		return Mono.defer(() -> {
			DurationRules.positive("Lease time of lock '" + key + "'", leaseTime);
			return lock(key, waitTime, leaseTime);
		});
	}

	private Mono<LockHandle> lock(String key, Duration waitTime, @Nullable Duration leaseTime) {
		return Mono.fromFuture(() -> onParallelScheduler(this.lockService.lockAsync(key, waitTime, leaseTime)))
			// a handle that reaches a subscriber who cancelled meanwhile goes back at once
			.doOnDiscard(LockHandle.class, LockHandle::close);
	}

	/**
	 * What {@code acquisition} gives, completed on Reactor's parallel scheduler rather than on the
	 * Redis client thread that completed it. Cancelling what this returns (the subscriber cancelled)
	 * cancels the acquisition (its waiter leaves the queue), and a handle that comes once it was
	 * cancelled is closed here: no hop between threads may hold a handle that nobody closes (a
	 * {@code publishOn} drops the value it holds on cancel without discarding it).
	 */
	private static CompletableFuture<@Nullable LockHandle> onParallelScheduler(CompletableFuture<@Nullable LockHandle> acquisition) {
		CompletableFuture<@Nullable LockHandle> delivered = new CompletableFuture<>();
		delivered.whenComplete((handle, error) -> {
			if (delivered.isCancelled()) {
				acquisition.cancel(true);
			}
		});
		acquisition.whenComplete((handle, error) -> {
			Runnable deliver = () -> {
				if (error != null) {
					delivered.completeExceptionally(error);
				}
				else if (!delivered.complete(handle) && handle != null) {
					handle.close();
				}
			};
			try {
				Schedulers.parallel().schedule(deliver);
			}
			catch (RejectedExecutionException ex) {
				// the scheduler is gone (the application stops): delivered here, or closed
				deliver.run();
			}
		});
		return delivered;
	}

}
