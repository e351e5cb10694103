package dev.lockstep.sample.events;

import jakarta.validation.Valid;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /events/{id}/signups} takes a place (201, or 409 when full); {@code GET /events/{id}} shows the places (429 past 10 a second). */
@RestController
@RequestMapping("/events")
class EventController {

	private final EventSignups events;

	EventController(EventSignups events) {
		this.events = events;
	}

	@PostMapping("/{id}/signups")
	@ResponseStatus(HttpStatus.CREATED)
	Signup signUp(@PathVariable String id, @Valid @RequestBody SignupRequest request) {
		return this.events.signUp(id, request.participant(), request.requestId());
	}

	@GetMapping("/{id}")
	EventPlaces places(@PathVariable String id) {
		return this.events.places(id);
	}

}
