/**
 * What Lockstep shows an operator through Spring Boot Actuator: the {@code lockstep} endpoint and
 * the {@code lockstep} health contributor.
 */
@NullMarked
package dev.lockstep.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
