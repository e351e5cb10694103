package dev.lockstep.aop;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * The Micrometer observations around annotated methods: {@code lockstep.lock.acquire} while the
 * lock is taken (outcome {@code acquired}, {@code not_acquired} or {@code unavailable}) and
 * {@code lockstep.lock.hold} while the method runs under it. Tags are low cardinality: the lock's
 * name (the annotation's {@code name}, by default {@code SimpleClassName.method}) and its kind
 * ({@code lock}, {@code permits} or {@code serial-group}), never the key's value.
 */
final class LockObservations {

	static final String NAME = "lockstep.lock.name";

	static final String KIND = "lockstep.lock.kind";

	static final String OUTCOME = "outcome";

	private LockObservations() {
	}

	static Observation acquire(LockedMethod method, ObservationRegistry registry) {
		if (registry.isNoop()) {
			return Observation.NOOP;
		}
		return tagged(Observation.createNotStarted("lockstep.lock.acquire", registry), method)
			.contextualName("lock " + method.name());
	}

	static Observation hold(LockedMethod method, ObservationRegistry registry) {
		if (registry.isNoop()) {
			return Observation.NOOP;
		}
		return tagged(Observation.createNotStarted("lockstep.lock.hold", registry), method)
			.contextualName("locked " + method.name());
	}

	private static Observation tagged(Observation observation, LockedMethod method) {
		return observation.lowCardinalityKeyValue(NAME, method.name())
			.lowCardinalityKeyValue(KIND, method.group() ? "serial-group" : (method.permits() > 1) ? "permits" : "lock");
	}

}
