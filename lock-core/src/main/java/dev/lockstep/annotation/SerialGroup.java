package dev.lockstep.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs calls that share a group one at a time, in the order they joined the group's queue in
 * Redis, across every instance; calls of different groups run in parallel. Same proxy rules as
 * {@link DistributedLock}.
 *
 * <pre class="code">
 * &#64;SerialGroup(key = "#req.tenantId + ':' + #req.entityCode")
 * public void runImport(ImportRequest req) { ... }
 * </pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SerialGroup {

	/** SpEL expression over the method's parameters giving the group key; same rules as {@link DistributedLock#key()}. */
	String key();

	/** Group namespace; defaults to {@code SimpleClassName.methodName}. */
	String name() default "";

	/** How long a call may wait for its turn; empty means {@code lockstep.serial-group.wait-time} (60s). */
	String waitTime() default "";

	/** A fixed lease, never renewed; empty means a watchdog lease renewed while the call runs. */
	String leaseTime() default "";

}
