/**
 * ShedLock on Lockstep: {@link dev.lockstep.shedlock.LockstepLockProvider}, the {@code LockProvider}
 * behind {@code @SchedulerLock}, and its auto-configuration.
 */
@NullMarked
package dev.lockstep.shedlock;

import org.jspecify.annotations.NullMarked;
