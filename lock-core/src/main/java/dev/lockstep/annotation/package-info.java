/**
 * The annotations that put a method under a lock ({@link dev.lockstep.annotation.DistributedLock}),
 * into a serial group ({@link dev.lockstep.annotation.SerialGroup}) or under a job guard
 * ({@link dev.lockstep.annotation.JobGuard}), and the advisor that applies the first two.
 */
@NullMarked
package dev.lockstep.annotation;

import org.jspecify.annotations.NullMarked;
