package dev.lockstep.autoconfigure.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A Micrometer counter of calls on Redis keys, tagged {@code name}: the key up to its first ':', or
 * all of it (keys written as {@code <name>:<id>}, {@code signup:event-42}, keep the tag low in
 * cardinality). The counters' rejections and the rate limits' decisions are counted with it.
 * @param registry where the counters are registered
 * @param meter the meter's name
 * @param description the meter's description
 */
public record KeyNameCounter(MeterRegistry registry, String meter, String description) {

	/**
	 * Counts one call on {@code key}.
	 * @param key the key, whose name is the tag {@code name}
	 * @param tags further tags, as key-value pairs
	 */
	public void increment(String key, String... tags) {
		Counter.builder(this.meter)
			.description(this.description)
			.tag("name", name(key))
			.tags(tags)
			.register(this.registry)
			.increment();
	}

	/** The key up to its first ':', or all of it. */
	static String name(String key) {
		int colon = key.indexOf(':');
		return (colon > 0) ? key.substring(0, colon) : key;
	}

}
