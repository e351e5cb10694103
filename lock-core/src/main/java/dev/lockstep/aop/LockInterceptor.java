package dev.lockstep.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.SerialGroups;
import dev.lockstep.internal.NotAcquired;
import dev.lockstep.internal.ThreadHolds;

/**
 * Runs an annotated method under its lock: the key is evaluated before anything else, the lock
 * is released when the method returns or throws, or, for a method returning a
 * {@link CompletionStage}, when that stage completes (whatever the caller does with the stage it
 * is given: a cancel is not passed on). A method returning {@code Mono} or {@code Flux} is locked
 * for as long as its publisher runs ({@link ReactiveLocking}).
 */
final class LockInterceptor implements MethodInterceptor {

	/**
	 * The JDK's read-only stage ({@link CompletableFuture#minimalCompletionStage()}): a
	 * {@link CompletableFuture} whose {@code complete} throws, as does that of its
	 * {@code newIncompleteFuture()}.
	 */
	private static final Class<?> MINIMAL_STAGE = new CompletableFuture<>().minimalCompletionStage().getClass();

	private final AnnotatedMethods<LockedMethod> methods;

	private final Supplier<LockService> lockService;

	private final Supplier<SerialGroups> serialGroups;

	private volatile @Nullable ObjectProvider<ObservationRegistry> observationProvider;

	private volatile @Nullable ObservationRegistry observations;

	private volatile @Nullable BeanFactory beanFactory;

	/** A {@link ReactiveLocking}, typed Object so that this class does not load Reactor. */
	private volatile @Nullable Object reactive;

	LockInterceptor(AnnotatedMethods<LockedMethod> methods, Supplier<LockService> lockService,
			Supplier<SerialGroups> serialGroups) {
		this.methods = methods;
		this.lockService = lockService;
		this.serialGroups = serialGroups;
	}

	/** Where to find the application's {@code ReactiveLockService}, if it has one. */
	void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
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
		if (method.reactive()) {
			return reactive(method).invoke(invocation, method, observations());
		}
		String target = method.target(invocation.getArguments());
		ObservationRegistry observations = observations();
		LockHandle handle = observedAcquire(method, target, observations);
		// Lockstep's own service records its holds for LockContext; an application's own one does not
		boolean entered = ThreadHolds.enter(handle);
		Observation hold;
		try {
			hold = LockObservations.hold(method, observations).start();
		}
		catch (Throwable ex) {
			// not even an observation handler's failure may leave the lock held, and this thread's
			release(handle, entered);
			throw ex;
		}
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
			ThreadHolds.detach(handle);
			return releaseWhenComplete(stage, new ObservedHandle(handle, hold), method.returnType());
		}
		release(handle, entered);
		hold.stop();
		return result;
	}

	/** The reactive side, made on the first call of a method returning {@code Mono} or {@code Flux}. */
	private ReactiveLocking reactive(LockedMethod method) {
		Object current = this.reactive;
		if (current == null) {
			current = ReactiveLocking.of(this.beanFactory, this.lockService.get(), method);
			this.reactive = current;
		}
		return (ReactiveLocking) current;
	}

	private static void release(LockHandle handle, boolean entered) {
		if (entered) {
			ThreadHolds.exit(handle);
		}
		handle.close();
	}

	/** Acquires inside a {@code lockstep.lock.acquire} observation whose outcome says how it went. */
	private LockHandle observedAcquire(LockedMethod method, String target, ObservationRegistry observations) {
		Observation acquire = LockObservations.acquire(method, observations).start();
		LockHandle handle;
		try {
			handle = acquire(method, target);
		}
		catch (LockNotAcquiredException ex) {
			acquire.lowCardinalityKeyValue(LockObservations.OUTCOME, "not_acquired");
			acquire.error(ex);
			acquire.stop();
			throw ex;
		}
		catch (RuntimeException ex) {
			acquire.lowCardinalityKeyValue(LockObservations.OUTCOME, "unavailable");
			acquire.error(ex);
			acquire.stop();
			throw ex;
		}
		try {
			acquire.lowCardinalityKeyValue(LockObservations.OUTCOME, "acquired");
			acquire.stop();
			return handle;
		}
		catch (Throwable ex) {
			// not even an observation handler's failure may leave the lock held with no handle to close it
			handle.close();
			throw ex;
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
	 * Releases the lock when the method's own stage completes, and not before: that stage is the
	 * only sign that the work has ended. The release hangs on a dependent of the method's stage that
	 * nobody else can complete, and the caller gets a copy that completes after the release. What the
	 * caller does with its copy ({@code cancel}, {@code orTimeout}, {@code complete}) ends the copy
	 * only: it is not passed on, because cancelling a {@link CompletableFuture} completes it without
	 * stopping the thread doing its work, and releasing then would let the next holder in beside
	 * that work. A method whose declared type the copy cannot have (a {@link CompletionStage} of its
	 * own kind, not a {@link CompletableFuture}) hands the caller its own stage; the lock is released
	 * when that stage completes, however it is completed.
	 */
	private static Object releaseWhenComplete(CompletionStage<?> stage, ObservedHandle handle, Class<?> returnType) {
		// a read-only stage's copy is completed through the plain future it is made from
		boolean minimal = stage.getClass() == MINIMAL_STAGE;
		CompletableFuture<Object> forCaller = minimal ? new CompletableFuture<>() : copyFor(stage, returnType);
		// Released off the completing thread: that may be a Redis client thread, which must not
		// wait for its own reply.
		stage.whenCompleteAsync((value, error) -> {
			try {
				handle.close();
			}
			finally {
				if (forCaller != null) {
					if (error != null) {
						forCaller.completeExceptionally(error);
					}
					else {
						forCaller.complete(value);
					}
				}
			}
		});
		if (forCaller == null) {
			return stage;
		}
		return minimal ? forCaller.minimalCompletionStage() : forCaller;
	}

	/**
	 * A fresh stage of the method's declared type, or null when none can be made: a subclass of
	 * {@link CompletableFuture} makes its own kind through {@code newIncompleteFuture()}.
	 */
	private static @Nullable CompletableFuture<Object> copyFor(CompletionStage<?> stage, Class<?> returnType) {
		CompletableFuture<Object> copy = (stage instanceof CompletableFuture<?> future) ? future.newIncompleteFuture()
				: new CompletableFuture<>();
		return returnType.isInstance(copy) ? copy : null;
	}

	/**
	 * A lock through the lock service, a group's turn through the serial groups; either way, a call
	 * that was not let in fails with the service's words after the method's own.
	 */
	private LockHandle acquire(LockedMethod method, String target) {
		Duration wait = method.waitTime();
		Duration lease = method.leaseTime();
		try {
			if (method.group()) {
				SerialGroups groups = this.serialGroups.get();
				return (lease != null) ? groups.awaitTurn(target, wait, lease) : groups.awaitTurn(target, wait);
			}
			LockService locks = this.lockService.get();
			if (method.permits() > 1) {
				return (lease != null) ? locks.tryAcquirePermit(target, method.permits(), wait, lease)
					.orElseThrow(() -> new LockNotAcquiredException(NotAcquired.permitsTaken(target, method.permits(), wait)))
						: locks.acquirePermit(target, method.permits(), wait);
			}
			if (lease == null) {
				return locks.acquire(target, wait);
			}
			return locks.tryAcquire(target, wait, lease)
				.orElseThrow(() -> new LockNotAcquiredException(NotAcquired.lockStillHeld(target, wait)));
		}
		catch (LockNotAcquiredException ex) {
			throw NotAcquired.reworded(ex, () -> method.source() + ": " + notAcquired(ex, method, target)
					+ "; the method was not run");
		}
	}

	private static String notAcquired(LockNotAcquiredException ex, LockedMethod method, String target) {
		String said = ex.getMessage();
		if (said != null && !said.isBlank()) {
			return said;
		}
		if (method.permits() > 1) {
			return NotAcquired.permitsTaken(target, method.permits(), method.waitTime());
		}
		return method.group() ? NotAcquired.notYourTurn(target, method.waitTime())
				: NotAcquired.lockStillHeld(target, method.waitTime());
	}

}
