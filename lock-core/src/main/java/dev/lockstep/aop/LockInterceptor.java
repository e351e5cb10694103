package dev.lockstep.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.group.LockServiceSerialGroups;
import dev.lockstep.internal.DurationText;
import dev.lockstep.internal.NotAcquired;
import dev.lockstep.lock.ThreadLocks;

/**
 * Runs an annotated method under its lock: the key is evaluated before anything else, the lock
 * is released when the method returns or throws, or, for a method returning a
 * {@link CompletionStage}, when that stage completes (whatever the caller does with the stage it
 * is given).
 */
final class LockInterceptor implements MethodInterceptor {

	private final AnnotatedMethods<LockedMethod> methods;

	private final ObjectProvider<LockService> lockService;

	private volatile @Nullable ObjectProvider<ObservationRegistry> observationProvider;

	private volatile @Nullable ObservationRegistry observations;

	LockInterceptor(AnnotatedMethods<LockedMethod> methods, ObjectProvider<LockService> lockService) {
		this.methods = methods;
		this.lockService = lockService;
	}

	/** Where to find the application's {@link ObservationRegistry}, if it has one; resolved on first call. */
	void setObservations(ObjectProvider<ObservationRegistry> observations) {
		this.observationProvider = observations;
	}

	private ObservationRegistry observations() {
		ObservationRegistry current = this.observations;
		if (current == null) {
			ObjectProvider<ObservationRegistry> provider = this.observationProvider;
			current = (provider != null) ? provider.getIfUnique(() -> ObservationRegistry.NOOP) : ObservationRegistry.NOOP;
			this.observations = current;
		}
		return current;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object bean = invocation.getThis();
		Class<?> targetClass = (bean != null) ? AopUtils.getTargetClass(bean) : null;
		LockedMethod method = this.methods.find(invocation.getMethod(), targetClass);
		if (method == null) {
			return invocation.proceed();
		}
		String target = method.target(invocation.getArguments());
		ObservationRegistry observations = observations();
		LockHandle handle = observedAcquire(method, target, observations);
		// Lockstep's own service records its holds for LockContext; an application's own one does not
		boolean entered = ThreadLocks.enter(handle);
		Observation hold = LockObservations.hold(method, observations).start();
		Object result;
		try (Observation.Scope scope = hold.openScope()) {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			release(handle, entered);
			hold.error(ex);
			hold.stop();
			throw ex;
		}
		if (method.mayCompleteLater() && result instanceof CompletionStage<?> stage) {
			ThreadLocks.detach(handle);
			return releaseWhenComplete(stage, new ObservedHandle(handle, hold), method.returnType());
		}
		release(handle, entered);
		hold.stop();
		return result;
	}

	private static void release(LockHandle handle, boolean entered) {
		if (entered) {
			ThreadLocks.exit(handle);
		}
		handle.close();
	}

	/** Acquires inside a {@code lockstep.lock.acquire} observation whose outcome says how it went. */
	private LockHandle observedAcquire(LockedMethod method, String target, ObservationRegistry observations) {
		Observation acquire = LockObservations.acquire(method, observations).start();
		try {
			LockHandle handle = acquire(method, target);
			acquire.lowCardinalityKeyValue(LockObservations.OUTCOME, "acquired");
			return handle;
		}
		catch (LockNotAcquiredException ex) {
			acquire.lowCardinalityKeyValue(LockObservations.OUTCOME, "not_acquired");
			acquire.error(ex);
			throw ex;
		}
		catch (RuntimeException ex) {
			acquire.lowCardinalityKeyValue(LockObservations.OUTCOME, "unavailable");
			acquire.error(ex);
			throw ex;
		}
		finally {
			acquire.stop();
		}
	}

	/** Closing it releases the lock and ends the hold's observation. */
	private record ObservedHandle(LockHandle handle, Observation hold) implements AutoCloseable {

		@Override
		public void close() {
			try {
				this.handle.close();
			}
			finally {
				this.hold.stop();
			}
		}

	}

	/**
	 * Releases the lock when the method's own stage completes, whatever the caller does with the
	 * stage it is given. The release hangs on a dependent of the method's stage that nobody else can
	 * complete (a caller who cancels, times out or completes the stage it got would otherwise skip
	 * it). The caller gets a fresh stage that completes after the release; cancelling it cancels the
	 * method's stage too, and the lock is still released only once that stage has completed, so the
	 * work never runs unlocked.
	 */
	private static Object releaseWhenComplete(CompletionStage<?> stage, ObservedHandle handle, Class<?> returnType) {
		CompletableFuture<Object> forCaller = new CompletableFuture<>();
		// Released off the completing thread: that may be a Redis client thread, which must not
		// wait for its own reply.
		stage.whenCompleteAsync((value, error) -> {
			try {
				handle.close();
			}
			finally {
				if (error != null) {
					forCaller.completeExceptionally(error);
				}
				else {
					forCaller.complete(value);
				}
			}
		});
		if (!returnType.isInstance(forCaller)) {
			return stage;
		}
		forCaller.whenComplete((value, error) -> {
			if (forCaller.isCancelled()) {
				cancel(stage);
			}
		});
		return forCaller;
	}

	private static void cancel(CompletionStage<?> stage) {
		try {
			stage.toCompletableFuture().cancel(true);
		}
		catch (UnsupportedOperationException ex) {
			// A stage that cannot be cancelled from outside runs to its end; the lock is released then.
		}
	}

	private LockHandle acquire(LockedMethod method, String target) {
		LockService locks = this.lockService.getObject();
		String key = method.lockKey(target);
		try {
			if (method.leaseTime() == null) {
				return locks.acquire(key, method.waitTime());
			}
			return locks.tryAcquire(key, method.waitTime(), method.leaseTime())
				.orElseThrow(() -> new LockNotAcquiredException(notAcquired(method, target)));
		}
		catch (LockNotAcquiredException ex) {
			throw NotAcquired.reworded(ex, () -> notAcquired(method, target));
		}
	}

	private static String notAcquired(LockedMethod method, String target) {
		String detail = method.group() ? LockServiceSerialGroups.notYourTurn(target, method.waitTime())
				: "lock '" + target + "' is still held elsewhere after waiting " + DurationText.of(method.waitTime());
		return method.source() + ": " + detail + "; the method was not run";
	}

}
