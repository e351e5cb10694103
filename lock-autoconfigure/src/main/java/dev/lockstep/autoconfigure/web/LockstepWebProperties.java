package dev.lockstep.autoconfigure.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How Lockstep's exceptions answer HTTP in a Spring MVC or WebFlux application.
 *
 * @param problemDetails Whether Lockstep's exceptions that reach Spring MVC or WebFlux unhandled answer
 * with an RFC 9457 problem detail and a fitting status (409 for a lock not acquired, 503 with
 * Retry-After when Redis is unreachable, 500 for a bad lock key) instead of a bare 500. An
 * application's own exception handlers come first either way.
 */
@ConfigurationProperties("lockstep.web")
public record LockstepWebProperties(@DefaultValue("true") boolean problemDetails) {

}
