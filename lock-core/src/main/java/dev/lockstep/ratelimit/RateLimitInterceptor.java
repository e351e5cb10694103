package dev.lockstep.ratelimit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.lockstep.RateLimitExceededException;
import dev.lockstep.RateLimiter;
import dev.lockstep.RateLimiter.Decision;
import dev.lockstep.aop.AnnotatedMethodInterceptor;
import dev.lockstep.aop.AnnotatedMethods;

/**
 * Runs an annotated method only when each of its limits allows the call, in the order declared:
 * keys are evaluated first, then each limit is taken from the {@link RateLimiter}, waiting for a
 * slot up to the limit's wait time (sleeping until the slot is due, then asking again). A call
 * that gets no slot is refused with {@link RateLimitExceededException} and the method is not run.
 */
final class RateLimitInterceptor extends AnnotatedMethodInterceptor<RateLimitedMethod, RateLimiter> {

	RateLimitInterceptor(AnnotatedMethods<RateLimitedMethod> methods, Supplier<RateLimiter> rateLimiter) {
		super(methods, rateLimiter);
	}

	@Override
	protected @Nullable Object invoke(MethodInvocation invocation, RateLimitedMethod method) throws Throwable {
		String[] targets = new String[method.limits().size()];
		for (int i = 0; i < targets.length; i++) {
			targets[i] = method.limits().get(i).target(invocation.getArguments());
		}
		RateLimiter limiter = service();
		for (int i = 0; i < targets.length; i++) {
			acquire(limiter, method.limits().get(i), targets[i]);
		}
		return invocation.proceed();
	}

	/** Takes a slot, waiting for one up to the limit's wait time; refuses the call when none comes in time. */
	private static void acquire(RateLimiter limiter, RateLimitedMethod.Limit limit, String target) {
		long deadline = System.nanoTime() + limit.waitTime().toNanos();
		while (true) {
			Decision decision = limiter.tryAcquire(target, limit.limit(), limit.per());
			if (decision.allowed()) {
				return;
			}
			long left = deadline - System.nanoTime();
			Duration retryAfter = decision.retryAfter();
			if (retryAfter.toNanos() > left) {
				throw new RateLimitExceededException(limit.source(), target, limit.limit(), limit.per(), retryAfter);
			}
			try {
				// at least a millisecond, so a slot due "now" by Redis's clock is not asked for in a busy loop
				TimeUnit.NANOSECONDS.sleep(Math.max(retryAfter.toNanos(), TimeUnit.MILLISECONDS.toNanos(1)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RateLimitExceededException(limit.source() + " (interrupted while waiting for a slot)", target,
						limit.limit(), limit.per(), retryAfter);
			}
		}
	}

}
