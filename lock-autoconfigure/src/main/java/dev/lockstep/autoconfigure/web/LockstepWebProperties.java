package dev.lockstep.autoconfigure.web;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How Lockstep's exceptions answer HTTP in a Spring MVC or WebFlux application.
 */
@ConfigurationProperties("lockstep.web")
public class LockstepWebProperties {

	/**
	 * Whether Lockstep's exceptions that reach Spring MVC or WebFlux unhandled answer with an RFC 9457 problem
	 * detail and a fitting status (409 for a lock not acquired, 503 with Retry-After when Redis is
	 * unreachable, 500 for a bad lock key) instead of a bare 500. An application's own exception
	 * handlers come first either way.
	 */
	private boolean problemDetails = true;

	public boolean isProblemDetails() {
		return this.problemDetails;
	}

	public void setProblemDetails(boolean problemDetails) {
		this.problemDetails = problemDetails;
	}

}
