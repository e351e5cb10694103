/**
 * Key expressions of the Lockstep annotations: SpEL limited to the method's arguments, their
 * properties and instance methods. Internal to Lockstep.
 */
@NullMarked
package dev.lockstep.internal.spel;

import org.jspecify.annotations.NullMarked;
