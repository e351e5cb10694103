package dev.lockstep.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the tasks of a {@link dev.lockstep.SerialQueue} on this instance: the method takes one
 * payload parameter, whose type says how the payload's JSON is read, and optionally a
 * {@link dev.lockstep.SerialTask} parameter. Returning normally marks the task done; throwing
 * retries it (its group waits) and, after the last attempt, moves it to the dead letters.
 *
 * <pre class="code">
 * &#64;SerialQueueListener(queue = "imports", concurrency = "4")
 * void runImport(ImportRequest request, SerialTask task) { ... }
 * </pre>
 * A payload the method's parameter type cannot read goes straight to the dead letters, with the
 * reason. Unlike {@link SerialGroup}, nobody waits for the result: use this for work that arrives
 * from a broker or a request and may finish later.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SerialQueueListener {

	/** The queue's name. */
	String queue();

	/** How many of the queue's tasks this instance runs at once; {@code ${...}} placeholders allowed. */
	String concurrency() default "1";

}
