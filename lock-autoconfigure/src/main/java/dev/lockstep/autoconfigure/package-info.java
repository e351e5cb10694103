/**
 * Spring Boot auto-configuration of Lockstep on the application's Spring Data Redis connection.
 */
@NullMarked
package dev.lockstep.autoconfigure;

import org.jspecify.annotations.NullMarked;
