package dev.lockstep.ratelimit;

/** What a rate limit does with a call while Redis cannot be reached or fails. */
public enum WhenUnavailable {

	/** Refuse the call with {@link dev.lockstep.LockUnavailableException}: fail closed. */
	REFUSE,

	/** Let the call through, logging a warning (at most one every ten seconds): fail open. */
	ALLOW

}
