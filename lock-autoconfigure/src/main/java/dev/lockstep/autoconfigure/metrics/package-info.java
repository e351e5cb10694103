/**
 * Micrometer metrics of Lockstep.
 */
@NullMarked
package dev.lockstep.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
