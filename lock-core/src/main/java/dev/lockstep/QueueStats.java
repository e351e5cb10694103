package dev.lockstep;

/**
 * Counts of one {@link SerialQueue}, read from Redis in one step.
 * @param queued tasks waiting to run (including tasks waiting for a retry)
 * @param running tasks being run by a listener somewhere
 * @param dead tasks in the dead letters
 * @param groupsWaiting groups whose next task could run now and waits for a free worker
 */
public record QueueStats(long queued, long running, long dead, long groupsWaiting) {
}
