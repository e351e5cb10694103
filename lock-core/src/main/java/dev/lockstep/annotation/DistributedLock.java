package dev.lockstep.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method while holding a cluster-wide lock: one caller at a time per key, across every
 * instance that shares the Redis (or up to {@link #permits()} callers at a time). Applies to public methods of Spring beans called through the
 * bean (not self-invocation). Wraps any {@code @Transactional} on the same method, so the
 * transaction commits before the lock is released. A method returning a
 * {@link java.util.concurrent.CompletionStage} keeps the lock until the stage completes.
 *
 * <pre class="code">
 * &#64;DistributedLock(key = "#tenantId + ':' + #entity")
 * public void importEntity(String tenantId, String entity) { ... }
 * </pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * SpEL expression over the method's parameters by name ({@code #tenantId}), or by position
	 * ({@code #p0}, {@code #a0}), giving the lock key. Properties and instance methods of the
	 * arguments are allowed; type references, constructors and bean references are not.
	 */
	String key();

	/** Lock namespace; defaults to {@code SimpleClassName.methodName}. */
	String name() default "";

	/**
	 * How long to wait for the lock ({@code 500ms}, {@code 5s}, {@code PT5S}, {@code ${...}});
	 * empty means {@code lockstep.lock.wait-time}. {@code 0} means a single attempt.
	 */
	String waitTime() default "";

	/**
	 * A fixed lease, never renewed; empty means a watchdog lease ({@code lockstep.lock.lease-time})
	 * renewed while the method runs.
	 */
	String leaseTime() default "";

	/**
	 * How many callers of one key may run the method at once, across every instance ({@code 5}: up
	 * to five; see {@link dev.lockstep.LockService#acquirePermit}). {@code 1}, the default, is the
	 * lock: one caller at a time. Must be at least 1. Above 1, the method is not reentrant: a
	 * nested call on the same thread takes a permit of its own.
	 */
	int permits() default 1;

}
