/**
 * Fencing checked by the protected resource itself: writes that only land when the writer's
 * fencing token is above the one stored with the data ({@link dev.lockstep.fencing.JdbcFencing}
 * for JDBC, {@link dev.lockstep.fencing.FencingTokenListener} for JPA entities). Optional: each
 * needs its own library (spring-jdbc, the Jakarta Persistence API) on the class path.
 */
@NullMarked
package dev.lockstep.fencing;

import org.jspecify.annotations.NullMarked;
