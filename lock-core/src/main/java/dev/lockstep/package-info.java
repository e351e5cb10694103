/**
 * Lockstep's public API: the {@link dev.lockstep.LockService}, the handle it returns, the
 * exceptions it throws and the listener that observes it.
 */
@NullMarked
package dev.lockstep;

import org.jspecify.annotations.NullMarked;
