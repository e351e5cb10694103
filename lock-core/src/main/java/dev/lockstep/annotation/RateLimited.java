package dev.lockstep.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method only within a rate limit shared by every instance: at most {@code limit} calls
 * per {@code per} for each key, counted in Redis on the Redis server's clock. A call over the
 * limit is refused with {@link dev.lockstep.RateLimitExceededException} (carrying how long until
 * a call is allowed), unless {@code waitTime} lets it wait for a slot; the method is not run then.
 * Applies to public methods of Spring beans called through the bean (not self-invocation).
 * <p>
 * The bucket of a key starts full: a key that was idle allows a burst of {@code limit} calls at
 * once, then one every {@code per / limit}; so at most {@code 2 * limit} calls pass within any
 * one {@code per}, and {@code limit} per {@code per} over long stretches (see
 * {@link dev.lockstep.RateLimiter}). Repeat the annotation for a burst limit and a sustained one
 * on the same method; each is checked in order, and a call refused by a later one has used its
 * place in the earlier ones.
 *
 * <pre class="code">
 * &#64;RateLimited(key = "#tenantId", limit = 10, per = "1s", name = "search-burst")
 * &#64;RateLimited(key = "#tenantId", limit = 1000, per = "1h", name = "search-hourly")
 * public Results search(String tenantId, Query query) { ... }
 * </pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

	/**
	 * SpEL expression over the method's parameters by name ({@code #tenantId}), or by position
	 * ({@code #p0}, {@code #a0}), giving the limited key, as in {@link DistributedLock#key()}.
	 */
	String key();

	/** Calls allowed per {@link #per()} for one key, at least 1; also the burst a rested key allows. */
	long limit();

	/** The period of the limit ({@code 500ms}, {@code 1s}, {@code 1m}, {@code PT1H}, {@code ${...}}), at least 1ms. */
	String per();

	/**
	 * Namespace of the limit, the first part of its key ({@code name:key}) and the {@code name}
	 * tag of its meters; defaults to {@code SimpleClassName.methodName}. Repeated annotations on one
	 * method need names of their own (startup fails otherwise: they would count in one bucket).
	 */
	String name() default "";

	/**
	 * How long a call over the limit may wait for a slot ({@code 500ms}, {@code 5s}, {@code ${...}}):
	 * it sleeps until the limit allows a call and tries again, for at most this long in all.
	 * {@code 0} (the default) refuses at once.
	 */
	String waitTime() default "0";

	/** Holds repeated {@link RateLimited} annotations. */
	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@interface List {

		RateLimited[] value();

	}

}
