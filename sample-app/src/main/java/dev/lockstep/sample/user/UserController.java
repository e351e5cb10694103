package dev.lockstep.sample.user;

import java.util.List;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.lockstep.sample.web.ResourceNotFoundException;

/** Delivers "init user" messages over HTTP, and shows the users table. */
@RestController
@RequestMapping("/users")
class UserController {

	private final UserInitialisationService initialisation;

	private final UserRepository users;

	UserController(UserInitialisationService initialisation, UserRepository users) {
		this.initialisation = initialisation;
		this.users = users;
	}

	/** 201 when this delivery created the user, 200 when an earlier one had. */
	@PostMapping
	ResponseEntity<UserInitialisation> initialise(@Valid @RequestBody InitialiseUserRequest request) {
		UserInitialisation result = this.initialisation.initialise(request.pin(), request.name());
		return ResponseEntity.status(result.created() ? HttpStatus.CREATED : HttpStatus.OK).body(result);
	}

	@GetMapping("/{pin}")
	User user(@PathVariable String pin) {
		return this.users.findByPin(pin).orElseThrow(() -> new ResourceNotFoundException("No user with pin '" + pin + "'"));
	}

	/** Every row for {@code pin} (duplicates would show here), or the latest users. */
	@GetMapping
	List<User> users(@RequestParam(required = false) @Nullable String pin,
			@RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
		return (pin != null) ? this.users.findAllByPin(pin) : this.users.findLatest(limit);
	}

}
