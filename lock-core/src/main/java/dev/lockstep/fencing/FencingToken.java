package dev.lockstep.fencing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the {@code Long} (or {@code long}) field of a JPA entity that keeps the fencing token of
 * its last writer; the entity also names {@link FencingTokenListener} in its
 * {@code @EntityListeners} and has a {@code @Version} attribute. See {@link FencingTokenListener}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface FencingToken {

}
