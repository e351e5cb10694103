package dev.lockstep.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;

import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.SerialGroup;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.MethodAttributes;
import dev.lockstep.internal.ReactiveTypes;
import dev.lockstep.internal.spel.KeyExpression;

/**
 * Finds {@link DistributedLock} and {@link SerialGroup} on methods and resolves them once: names,
 * {@code ${...}} placeholders, durations and key expressions. Anything wrong fails at startup,
 * when the proxy is created, with a message naming the method and the attribute.
 */
record LockedMethods(Duration lockWaitTime, Duration groupWaitTime) implements AnnotatedMethods.Resolver<LockedMethod> {

	@Override
	public @Nullable LockedMethod resolve(Method method, Class<?> userClass, MethodAttributes attributes) {
		DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		SerialGroup group = AnnotatedElementUtils.findMergedAnnotation(method, SerialGroup.class);
		if (lock == null && group == null) {
			return null;
		}
		String source = "@" + ((lock != null) ? "DistributedLock" : "SerialGroup") + " on "
				+ MethodAttributes.describe(method);
		if (lock != null && group != null) {
			throw new IllegalStateException(source + " also has @SerialGroup; a method takes one of the two");
		}
		MethodAttributes.requireInterceptable(method, source);
		String name = (lock != null) ? lock.name() : group.name();
		name = StringUtils.hasText(name) ? attributes.name(source, name) : userClass.getSimpleName() + "." + method.getName();
		String keyText = (lock != null) ? lock.key() : group.key();
		String waitText = (lock != null) ? lock.waitTime() : group.waitTime();
		String leaseText = (lock != null) ? lock.leaseTime() : group.leaseTime();
		Duration wait = StringUtils.hasText(waitText)
				? attributes.duration(source, "waitTime", waitText, DurationRules::notNegative)
				: ((lock != null) ? this.lockWaitTime : this.groupWaitTime);
		Duration lease = StringUtils.hasText(leaseText)
				? attributes.duration(source, "leaseTime", leaseText, DurationRules::positive) : null;
		int permits = (lock != null) ? lock.permits() : 1;
		if (permits < 1) {
			throw new IllegalStateException(source + ": permits must be at least 1 (1 is a lock), not " + permits);
		}
		boolean suspending = ReactiveTypes.isSuspending(method, source);
		boolean flow = suspending && ReactiveTypes.suspendsForFlow(method);
		if (permits > 1 && (suspending || ReactiveTypes.isReactorPublisher(method.getReturnType()))) {
			// the reactive path takes a lock: refused rather than let in one caller where N were asked for
			throw new IllegalStateException(source + ": permits = " + permits + " is not supported on a method returning "
					+ "Mono or Flux, or a suspend function; use permits = 1, or acquirePermit in the method");
		}
		return new LockedMethod(source, name, KeyExpression.parse(keyText, method, source), wait, lease,
				group != null, method.getReturnType(), permits, suspending, flow);
	}

}
