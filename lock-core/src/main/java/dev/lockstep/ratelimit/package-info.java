/**
 * Rate limits: {@link dev.lockstep.RateLimiter} on Redis ({@link dev.lockstep.ratelimit.RedisRateLimiter},
 * one Lua script per call), and the advisor and interceptor of
 * {@link dev.lockstep.annotation.RateLimited} ({@link dev.lockstep.ratelimit.RateLimitAdvisor}). The
 * auto-configuration builds these; code without Spring Boot may build them itself. Everything else
 * here is package-private.
 */
@NullMarked
package dev.lockstep.ratelimit;

import org.jspecify.annotations.NullMarked;
