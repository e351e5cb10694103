package dev.lockstep.annotation;

import java.util.concurrent.CompletionStage;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.SerialGroups;
import dev.lockstep.group.LockServiceSerialGroups;
import dev.lockstep.lock.DurationText;
import dev.lockstep.lock.ThreadLocks;

/**
 * Runs an annotated method under its lock: the key is evaluated before anything else, the lock
 * is released when the method returns or throws, or, for a method returning a
 * {@link CompletionStage}, when that stage completes.
 */
final class LockInterceptor implements MethodInterceptor {

	private final LockedMethods methods;

	private final ObjectProvider<LockService> lockService;

	LockInterceptor(LockedMethods methods, ObjectProvider<LockService> lockService) {
		this.methods = methods;
		this.lockService = lockService;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockedMethod method = this.methods.find(invocation.getMethod(), targetClass);
		if (method == null) {
			return invocation.proceed();
		}
		LockHandle handle = acquire(method, method.lockKey(invocation.getArguments()));
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			handle.close();
			throw ex;
		}
		if (method.mayCompleteLater() && result instanceof CompletionStage<?> stage) {
			ThreadLocks.detach(handle);
			// Released off the completing thread: that may be a Redis client thread, which must not
			// wait for its own reply.
			CompletionStage<?> released = stage.whenCompleteAsync((value, error) -> handle.close());
			return method.returnType().isInstance(released) ? released : stage;
		}
		handle.close();
		return result;
	}

	private LockHandle acquire(LockedMethod method, String key) {
		LockService locks = this.lockService.getObject();
		try {
			if (method.leaseTime() == null) {
				return locks.acquire(key, method.waitTime());
			}
			return locks.tryAcquire(key, method.waitTime(), method.leaseTime())
				.orElseThrow(() -> new LockNotAcquiredException(notAcquired(method, key)));
		}
		catch (LockNotAcquiredException ex) {
			if (ex.getCause() instanceof InterruptedException) {
				throw ex;
			}
			throw new LockNotAcquiredException(notAcquired(method, key), ex);
		}
	}

	private static String notAcquired(LockedMethod method, String key) {
		String detail = method.group()
				? LockServiceSerialGroups.notYourTurn(key.substring(SerialGroups.LOCK_KEY_PREFIX.length()), method.waitTime())
				: "lock '" + key + "' is still held elsewhere after waiting "
						+ DurationText.of(method.waitTime());
		return method.source() + ": " + detail + "; the method was not run";
	}

}
