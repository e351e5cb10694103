package dev.lockstep.sample.redis;

import org.jspecify.annotations.Nullable;

/** The embedded Redis could not be started; {@link EmbeddedRedisFailureAnalyzer} tells the user what to do. */
class EmbeddedRedisException extends RuntimeException {

	private final String action;

	EmbeddedRedisException(String description, String action, @Nullable Throwable cause) {
		super(description, cause);
		this.action = action;
	}

	String action() {
		return this.action;
	}

}
