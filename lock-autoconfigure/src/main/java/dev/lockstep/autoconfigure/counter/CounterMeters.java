package dev.lockstep.autoconfigure.counter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import dev.lockstep.counter.RedisCounters;

/**
 * Counts refused increments as {@code lockstep.counter.rejections}, tagged {@code name}: the
 * counter key up to its first ':' (write keys as {@code <name>:<id>}, {@code signup:event-42},
 * so that the tag stays low in cardinality).
 */
final class CounterMeters {

	static final String REJECTIONS = "lockstep.counter.rejections";

	private final MeterRegistry registry;

	CounterMeters(@Nullable RedisCounters counters, MeterRegistry registry) {
		this.registry = registry;
		if (counters != null) {
			counters.setRejectionListener(this::rejected);
		}
	}

	private void rejected(String key) {
		Counter.builder(REJECTIONS)
			.description("Counter increments refused because they would have passed the limit")
			.tag("name", name(key))
			.register(this.registry)
			.increment();
	}

	/** The key up to its first ':', or all of it. */
	static String name(String key) {
		int colon = key.indexOf(':');
		return (colon > 0) ? key.substring(0, colon) : key;
	}

}
