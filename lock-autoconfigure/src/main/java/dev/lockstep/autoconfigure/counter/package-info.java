/**
 * Auto-configuration of the {@link dev.lockstep.Counters} bean and its meters.
 */
@NullMarked
package dev.lockstep.autoconfigure.counter;

import org.jspecify.annotations.NullMarked;
