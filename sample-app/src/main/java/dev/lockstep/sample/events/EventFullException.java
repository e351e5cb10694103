package dev.lockstep.sample.events;

/** Every place of the event is taken; answered with 409. */
public class EventFullException extends RuntimeException {

	public EventFullException(String eventId, long limit) {
		super("Event '" + eventId + "' is full: all " + limit + " places are taken");
	}

}
