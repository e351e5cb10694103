package dev.lockstep.sample.events;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

import dev.lockstep.Counters;
import dev.lockstep.annotation.RateLimited;

/**
 * Sign-ups under a participant limit. The place is taken in Redis first, in one step that never
 * lets the count above the limit however many instances call at once (field report 4 lost updates
 * with read-add-write, then deadlocked with a spin lock); the row is written after it.
 */
@Service
public class EventSignups {

	private final Counters counters;

	private final SignupRepository signups;

	private final long participantLimit;

	private final String instanceId;

	EventSignups(Counters counters, SignupRepository signups, @Value("${sample.events.participant-limit}") long participantLimit,
			@Value("${sample.instance-id}") String instanceId) {
		this.counters = counters;
		this.signups = signups;
		this.participantLimit = participantLimit;
		this.instanceId = instanceId;
	}

	/**
	 * Takes a place, or throws {@link EventFullException}. A request id sent again (a retry) gets
	 * the answer its first request got, and takes no second place.
	 */
	public Signup signUp(String eventId, String participant, @Nullable String requestId) {
		String key = "event:" + eventId;
		boolean taken = (requestId != null) ? this.counters.tryIncrement(key, 1, this.participantLimit, requestId)
				: this.counters.tryIncrement(key, this.participantLimit);
		if (!taken) {
			throw new EventFullException(eventId, this.participantLimit);
		}
		return this.signups.insert(eventId, participant, requestId, this.instanceId);
	}

	/** How full the event is; at most 10 reads a second per event across all instances (answered 429 past it). */
	@RateLimited(key = "#eventId", limit = 10, per = "1s", name = "event-places")
	public EventPlaces places(String eventId) {
		return new EventPlaces(eventId, this.counters.current("event:" + eventId), this.participantLimit,
				this.signups.count(eventId));
	}

}
