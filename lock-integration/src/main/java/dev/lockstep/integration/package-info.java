/**
 * Spring Integration on Lockstep: {@link dev.lockstep.integration.LockstepLockRegistry}, a
 * {@code LockRegistry} for aggregators, {@code LockRegistryLeaderInitiator} and
 * {@code executeLocked}, and its auto-configuration.
 */
@NullMarked
package dev.lockstep.integration;

import org.jspecify.annotations.NullMarked;
