/**
 * The annotations: {@link dev.lockstep.annotation.DistributedLock} puts a method under a lock,
 * {@link dev.lockstep.annotation.SerialGroup} into a serial group, and
 * {@link dev.lockstep.annotation.JobGuard} under a job guard. They are applied by the advisors in
 * {@code dev.lockstep.aop} and {@code dev.lockstep.job}, which the auto-configuration registers.
 */
@NullMarked
package dev.lockstep.annotation;

import org.jspecify.annotations.NullMarked;
