package dev.lockstep.aop;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

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
 * after the cancel has been passed up to it. A Kotlin {@code suspend} function is locked the same
 * way: Spring's proxy hands this interceptor the function as a {@code Mono} (a {@code Flux} when it
 * returns a {@code Flow}) and awaits what it gets back, so a cancelled coroutine cancels the
 * subscription. The observations are the blocking path's ({@link LockObservations}), the hold
 * spanning the publisher. Loaded only for such a method, so only with Reactor.
 */
final class ReactiveLocking {

	/** Where Micrometer's context propagation keeps the current observation in a Reactor context. */
	private static final String OBSERVATION_KEY = "micrometer.observation";

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
		throw new IllegalStateException(method.source() + " returns " + (method.suspending() ? "from a suspension"
				: method.returnType().getSimpleName()) + ", which is locked without blocking through a ReactiveLockService; "
				+ "the application's LockService (" + lockService.getClass().getName()
				+ ") is neither a RedisLockService nor a ReactiveLockService");
	}

	Object invoke(MethodInvocation invocation, LockedMethod method, ObservationRegistry observations) {
		boolean one = method.suspending() ? !method.flow() : Mono.class.isAssignableFrom(method.returnType());
		if (one) {
			return Mono.deferContextual((context) -> Mono.usingWhen(acquire(invocation, method, observations, context),
					(held) -> Mono.from(proceed(invocation)).contextWrite(held::into), (held) -> held.release(null),
					(held, error) -> held.release(error), (held) -> held.release(null)));
		}
		return Flux.deferContextual((context) -> Flux.usingWhen(acquire(invocation, method, observations, context),
				(held) -> Flux.from(proceed(invocation)).contextWrite(held::into), (held) -> held.release(null),
				(held, error) -> held.release(error), (held) -> held.release(null)));
	}

	/**
	 * The lock for this call inside a {@code lockstep.lock.acquire} observation (outcome
	 * {@code acquired}, {@code not_acquired}, {@code unavailable}, or {@code cancelled} for a
	 * subscriber gone while it waited), then the {@code lockstep.lock.hold} observation started.
	 */
	private Mono<Held> acquire(MethodInvocation invocation, LockedMethod method, ObservationRegistry observations,
			ContextView context) {
		Observation parent = (context.getOrDefault(OBSERVATION_KEY, null) instanceof Observation current) ? current
				: null;
		return Mono.defer(() -> {
			String target = method.target(invocation.getArguments());
			Once acquire = new Once(LockObservations.acquire(method, observations).parentObservation(parent).start());
			// ended before each signal goes on: the method is called while the handle's signal is passed
			return lock(method, target)
				.doOnError((ex) -> acquire.end((ex instanceof LockNotAcquiredException) ? "not_acquired" : "unavailable", ex))
				.doOnCancel(() -> acquire.end("cancelled", null))
				.map((handle) -> held(handle, acquire, method, observations, parent));
		});
	}

	/**
	 * Ends the acquisition's observation and starts the hold's; if an observation handler fails on
	 * the way, the lock is released before the failure goes on, rather than left held with nobody
	 * to release it.
	 */
	private Held held(LockHandle handle, Once acquire, LockedMethod method, ObservationRegistry observations,
			@Nullable Observation parent) {
		try {
			acquire.end("acquired", null);
			return new Held(handle,
					new Once(LockObservations.hold(method, observations).parentObservation(parent).start()), this.locks);
		}
		catch (Throwable ex) {
			this.locks.release(handle).subscribe(null, ex::addSuppressed);
			throw ex;
		}
	}

	private Mono<LockHandle> lock(LockedMethod method, String target) {
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

	/** A lock held for a subscription, with the observation of its hold. */
	private record Held(LockHandle handle, Once hold, ReactiveLockService locks) {

		/** What the method's publisher sees: the handle, and the hold as the current observation. */
		Context into(Context context) {
			Context withHandle = context.put(ReactiveLockService.CONTEXT_KEY, this.handle);
			return this.hold.observation.isNoop() ? withHandle : withHandle.put(OBSERVATION_KEY, this.hold.observation);
		}

		/**
		 * Releases the lock, then ends the hold's observation (with the method's error, if it
		 * failed) before the release's completion goes on to the subscriber.
		 */
		Mono<Void> release(@Nullable Throwable error) {
			return this.locks.release(this.handle)
				.doOnTerminate(() -> this.hold.end(null, error))
				.doOnCancel(() -> this.hold.end(null, error));
		}

	}

	/** An observation stopped once, whichever signal comes first. */
	private static final class Once {

		private final Observation observation;

		private final AtomicBoolean ended = new AtomicBoolean();

		Once(Observation observation) {
			this.observation = observation;
		}

		void end(@Nullable String outcome, @Nullable Throwable error) {
			if (this.ended.compareAndSet(false, true)) {
				if (outcome != null) {
					this.observation.lowCardinalityKeyValue(LockObservations.OUTCOME, outcome);
				}
				if (error != null) {
					this.observation.error(error);
				}
				this.observation.stop();
			}
		}

	}

}
