package dev.lockstep;

/**
 * A lock this instance held was found gone before it was released: its lease ran out (the
 * holder was paused longer than the lease, or Redis was unreachable) or Redis lost it.
 * @param key the key the lock was acquired for
 * @param fencingToken the token of the lost acquisition
 * @param reason what this instance observed
 */
public record LockLostEvent(String key, long fencingToken, String reason) {
}
