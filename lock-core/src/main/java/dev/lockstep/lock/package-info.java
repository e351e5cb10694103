/**
 * The Redis lock engine behind {@link dev.lockstep.LockService}: fair queueing with direct
 * hand-off, the lease watchdog, waiter heartbeats and per-thread reentrancy.
 */
@NullMarked
package dev.lockstep.lock;

import org.jspecify.annotations.NullMarked;
