package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.DefaultValue;

import dev.lockstep.counter.RedisCounters;
import dev.lockstep.internal.DurationRules;

/**
 * Settings of the {@code Counters} bean.
 *
 * @param enabled Whether the Counters bean is created.
 * @param idempotencyWindow How long an idempotency id of Counters.tryIncrement is remembered: a call
 * with the same id within it changes nothing and answers as the first did.
 */
public record CountersProperties(@DefaultValue("true") boolean enabled, Duration idempotencyWindow) {

	/** Checks the window, naming its property; unset, it is the counters' own default. */
	public CountersProperties {
		idempotencyWindow = (idempotencyWindow != null)
				? DurationRules.positive("lockstep.counters.idempotency-window", idempotencyWindow)
				: RedisCounters.DEFAULT_IDEMPOTENCY_WINDOW;
	}

}
