/**
 * Starts a Redis for the sample when none is configured, so the app runs on a machine with only a JDK.
 */
@NullMarked
package dev.lockstep.sample.redis;

import org.jspecify.annotations.NullMarked;
