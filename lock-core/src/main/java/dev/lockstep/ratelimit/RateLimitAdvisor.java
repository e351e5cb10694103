package dev.lockstep.ratelimit;

import java.util.function.Supplier;

import org.springframework.beans.factory.ObjectProvider;

import dev.lockstep.RateLimiter;
import dev.lockstep.annotation.RateLimited;
import dev.lockstep.aop.AnnotatedMethodAdvisor;
import dev.lockstep.aop.AnnotatedMethods;
import dev.lockstep.aop.LockAnnotationAdvisor;

/**
 * Applies {@link RateLimited} to the methods of Spring beans through the application's
 * {@link RateLimiter}, looked up on first call (so the advisor can be created early). Register it
 * as an infrastructure bean; any auto-proxy creator (Spring Boot always has one) picks it up.
 */
public final class RateLimitAdvisor extends AnnotatedMethodAdvisor {

	/**
	 * Default order: outside {@code @DistributedLock} and {@code @SerialGroup} (and so outside
	 * transactions), so a refused call waits for no lock and opens no transaction.
	 */
	public static final int DEFAULT_ORDER = LockAnnotationAdvisor.DEFAULT_ORDER - 10;

	public RateLimitAdvisor(ObjectProvider<RateLimiter> rateLimiter) {
		this(new AnnotatedMethods<>(new RateLimitedMethods()), rateLimiter::getObject);
	}

	private RateLimitAdvisor(AnnotatedMethods<RateLimitedMethod> methods, Supplier<RateLimiter> rateLimiter) {
		super(methods, new RateLimitInterceptor(methods, rateLimiter));
		setOrder(DEFAULT_ORDER);
	}

}
