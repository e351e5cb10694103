/**
 * The annotations: {@link dev.lockstep.annotation.DistributedLock} puts a method under a lock,
 * {@link dev.lockstep.annotation.SerialGroup} into a serial group, and
 * {@link dev.lockstep.annotation.JobGuard} under a job guard, and
 * {@link dev.lockstep.annotation.RateLimited} within a rate limit. They are applied by the advisors in
 * {@code dev.lockstep.aop}, {@code dev.lockstep.job} and {@code dev.lockstep.ratelimit}, which the
 * auto-configuration registers.
 */
@NullMarked
package dev.lockstep.annotation;

import org.jspecify.annotations.NullMarked;
