package dev.lockstep.autoconfigure;

import org.springframework.boot.context.properties.bind.DefaultValue;

import dev.lockstep.ratelimit.WhenUnavailable;

/**
 * Settings of the {@code RateLimiter} bean and {@code @RateLimited}.
 *
 * @param enabled Whether the RateLimiter bean is created and @RateLimited applied.
 * @param whenUnavailable What a rate-limited call gets while Redis cannot be reached or fails: 'refuse'
 * fails it with LockUnavailableException, 'allow' lets it through and logs a warning (at most every
 * 10s).
 */
public record RateLimitProperties(@DefaultValue("true") boolean enabled,
		@DefaultValue("refuse") WhenUnavailable whenUnavailable) {

}
