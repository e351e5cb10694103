/**
 * Fencing checked by the protected resource itself: writes that only land when the writer's
 * fencing token is above the one stored with the data ({@link dev.lockstep.fencing.JdbcFencing}
 * for JDBC). Optional: needs spring-jdbc on the class path.
 */
@NullMarked
package dev.lockstep.fencing;

import org.jspecify.annotations.NullMarked;
