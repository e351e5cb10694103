package dev.lockstep.internal.redis;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids for calls that must not act twice when Lettuce sends them again after a reconnect (their
 * reply lost): the script keeps a short-lived record under the call's id and answers a call sent
 * again as it answered the first. Unique per service instance (a random part) and per call.
 */
public final class CallIds {

	private final String prefix = Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";

	private final AtomicLong calls = new AtomicLong();

	/** A fresh id. */
	public String next() {
		return this.prefix + this.calls.incrementAndGet();
	}

}
