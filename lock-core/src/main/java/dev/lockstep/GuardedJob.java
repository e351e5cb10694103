package dev.lockstep;

import java.time.Duration;

/**
 * A job this instance guards.
 * @param name the guard name
 * @param method the guarded method, as {@code SimpleClassName.method(ParameterTypes)}
 * @param lockAtMostFor how long a runner that died keeps the guard
 * @param lockAtLeastFor the least time a run keeps the guard after it starts
 */
public record GuardedJob(String name, String method, Duration lockAtMostFor, Duration lockAtLeastFor) {
}
