package dev.lockstep.autoconfigure;

import java.time.Duration;

import dev.lockstep.counter.RedisCounters;
import dev.lockstep.internal.DurationRules;

/**
 * Settings of the {@code Counters} bean.
 */
public class CountersProperties {

	/**
	 * Whether the Counters bean is created.
	 */
	private boolean enabled = true;

	/**
	 * How long an idempotency id of Counters.tryIncrement is remembered: a call with the same id
	 * within it changes nothing and answers as the first did.
	 */
	private Duration idempotencyWindow = RedisCounters.DEFAULT_IDEMPOTENCY_WINDOW;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getIdempotencyWindow() {
		return this.idempotencyWindow;
	}

	public void setIdempotencyWindow(Duration idempotencyWindow) {
		this.idempotencyWindow = DurationRules.positive("lockstep.counters.idempotency-window", idempotencyWindow);
	}

}
