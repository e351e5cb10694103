package dev.lockstep.lock;

import java.time.Duration;

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
 * scheduler, never on a Redis client thread (which must not wait for its own replies).
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
		return Mono.fromFuture(() -> this.lockService.lockAsync(key, waitTime, leaseTime))
			.publishOn(Schedulers.parallel())
			// a handle acquired for a subscriber that cancelled before it arrived goes back at once
			.doOnDiscard(LockHandle.class, LockHandle::close);
	}

}
