package dev.lockstep.aop;

import java.time.Duration;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.factory.BeanFactory;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.ReactiveLockService;
import dev.lockstep.SerialGroups;
import dev.lockstep.internal.NotAcquired;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.lock.RedisReactiveLockService;

/**
 * Locks a method returning {@code Mono} or {@code Flux} for as long as its publisher runs: the
 * lock (or the group's turn) is taken on subscription without blocking, the method is called
 * once it is held, and the lock is released on the publisher's terminal signal, or on cancel
 * after the cancel has been passed up to it. Loaded only for such a method, so only with Reactor.
 */
final class ReactiveLocking {

	private final ReactiveLockService locks;

	private ReactiveLocking(ReactiveLockService locks) {
		this.locks = locks;
	}

	/**
	 * The application's {@link ReactiveLockService} if it has one, else the reactive twin of
	 * {@code lockService}, or a clear error naming the method that needs it.
	 */
	static ReactiveLocking of(@Nullable BeanFactory beanFactory, LockService lockService, LockedMethod method) {
		ReactiveLockService defined = (beanFactory != null)
				? beanFactory.getBeanProvider(ReactiveLockService.class).getIfUnique() : null;
		if (defined != null) {
			return new ReactiveLocking(defined);
		}
		if (lockService instanceof ReactiveLockService reactive) {
			return new ReactiveLocking(reactive);
		}
		if (lockService instanceof RedisLockService redis) {
			return new ReactiveLocking(new RedisReactiveLockService(redis));
		}
		throw new IllegalStateException(method.source() + " returns " + method.returnType().getSimpleName()
				+ ", which is locked without blocking through a ReactiveLockService; the application's LockService ("
				+ lockService.getClass().getName() + ") is neither a RedisLockService nor a ReactiveLockService");
	}

	Object invoke(MethodInvocation invocation, LockedMethod method) {
		if (Mono.class.isAssignableFrom(method.returnType())) {
			return Mono.defer(() -> Mono.usingWhen(acquire(method, method.target(invocation.getArguments())),
					(handle) -> Mono.from(proceed(invocation)).contextWrite(withHandle(handle)), this.locks::release,
					(handle, error) -> this.locks.release(handle), this.locks::release));
		}
		return Flux.defer(() -> Flux.usingWhen(acquire(method, method.target(invocation.getArguments())),
				(handle) -> Flux.from(proceed(invocation)).contextWrite(withHandle(handle)), this.locks::release,
				(handle, error) -> this.locks.release(handle), this.locks::release));
	}

	private static Function<Context, Context> withHandle(LockHandle handle) {
		return (context) -> context.put(ReactiveLockService.CONTEXT_KEY, handle);
	}

	private Mono<LockHandle> acquire(LockedMethod method, String target) {
		Duration wait = method.waitTime();
		Duration lease = method.leaseTime();
		String key = method.group() ? SerialGroups.LOCK_KEY_PREFIX + target : target;
		Mono<LockHandle> handle = (lease != null)
				? this.locks.tryAcquire(key, wait, lease)
					.switchIfEmpty(Mono.error(() -> new LockNotAcquiredException(NotAcquired.lockStillHeld(key, wait))))
				: this.locks.acquire(key, wait);
		return handle.onErrorMap(LockNotAcquiredException.class,
				(ex) -> NotAcquired.reworded(ex, () -> method.source() + ": " + (method.group()
						? NotAcquired.notYourTurn(target, wait) : NotAcquired.lockStillHeld(target, wait))
						+ "; the method was not run"));
	}

	/** Calls the method once per subscription, through a copy of the invocation when it can be copied. */
	private static Publisher<?> proceed(MethodInvocation invocation) {
		MethodInvocation call = (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
				: invocation;
		try {
			Object result = call.proceed();
			return (result != null) ? (Publisher<?>) result : Mono.empty();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

}
