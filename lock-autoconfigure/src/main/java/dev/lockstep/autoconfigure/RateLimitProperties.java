package dev.lockstep.autoconfigure;

import dev.lockstep.ratelimit.WhenUnavailable;

/**
 * Settings of the {@code RateLimiter} bean and {@code @RateLimited}.
 */
public class RateLimitProperties {

	/**
	 * Whether the RateLimiter bean is created and @RateLimited applied.
	 */
	private boolean enabled = true;

	/**
	 * What a rate-limited call gets while Redis cannot be reached or fails: 'refuse' fails it with
	 * LockUnavailableException, 'allow' lets it through and logs a warning (at most every 10s).
	 */
	private WhenUnavailable whenUnavailable = WhenUnavailable.REFUSE;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public WhenUnavailable getWhenUnavailable() {
		return this.whenUnavailable;
	}

	public void setWhenUnavailable(WhenUnavailable whenUnavailable) {
		this.whenUnavailable = whenUnavailable;
	}

}
