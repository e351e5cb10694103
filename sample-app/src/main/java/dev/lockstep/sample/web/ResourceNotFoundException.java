package dev.lockstep.sample.web;

/** The request named something that does not exist; answered with 404. */
public class ResourceNotFoundException extends RuntimeException {

	public ResourceNotFoundException(String message) {
		super(message);
	}

}
