package dev.lockstep.autoconfigure.counter;

import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import dev.lockstep.autoconfigure.metrics.KeyNameCounter;
import dev.lockstep.counter.RedisCounters;

/**
 * Counts refused increments as {@code lockstep.counter.rejections}, tagged {@code name}: the
 * counter key up to its first ':' (write keys as {@code <name>:<id>}, {@code signup:event-42},
 * so that the tag stays low in cardinality).
 */
final class CounterMeters {

	static final String REJECTIONS = "lockstep.counter.rejections";

	CounterMeters(@Nullable RedisCounters counters, MeterRegistry registry) {
		KeyNameCounter rejections = new KeyNameCounter(registry, REJECTIONS,
				"Counter increments refused because they would have passed the limit");
		if (counters != null) {
			counters.setRejectionListener((key) -> rejections.increment(key));
		}
	}

}
