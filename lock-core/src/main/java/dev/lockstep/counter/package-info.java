/**
 * Bounded counters: {@link dev.lockstep.Counters} on Redis ({@link dev.lockstep.counter.RedisCounters}),
 * one Lua script per call. Not API: the auto-configuration builds it.
 */
@NullMarked
package dev.lockstep.counter;

import org.jspecify.annotations.NullMarked;
