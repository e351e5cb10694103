/**
 * Auto-configuration of the {@link dev.lockstep.RateLimiter} bean, {@code @RateLimited}, its meters
 * and the 429 answer of Spring MVC and WebFlux applications.
 */
@NullMarked
package dev.lockstep.autoconfigure.ratelimit;

import org.jspecify.annotations.NullMarked;
