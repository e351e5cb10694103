/**
 * Bounded counters: {@link dev.lockstep.Counters} on Redis ({@link dev.lockstep.counter.RedisCounters}),
 * one Lua script per call. The auto-configuration builds it; code without Spring Boot may build it
 * itself. Everything else here is package-private.
 */
@NullMarked
package dev.lockstep.counter;

import org.jspecify.annotations.NullMarked;
