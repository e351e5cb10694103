/**
 * Rate limits: {@link dev.lockstep.RateLimiter} on Redis ({@link dev.lockstep.ratelimit.RedisRateLimiter},
 * one Lua script per call), and the advisor and interceptor of
 * {@link dev.lockstep.annotation.RateLimited}. Not API: the auto-configuration builds these.
 */
@NullMarked
package dev.lockstep.ratelimit;

import org.jspecify.annotations.NullMarked;
