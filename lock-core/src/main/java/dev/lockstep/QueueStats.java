package dev.lockstep;

/**
 * Counts of one {@link SerialQueue}, read from Redis in one step.
 * @param queued tasks waiting to run (including tasks waiting for a retry, and tasks whose lease
 * ran out because their instance stopped, until a worker takes them back to run them again, or
 * buries them after their last attempt)
 * @param running tasks being run by a listener somewhere, under a lease that has not run out
 * @param dead tasks in the dead letters
 * @param groupsWaiting groups whose next task could run now and waits for a free worker (a group
 * whose running task's lease ran out among them: a worker takes that task back first, to run it
 * again or to bury it after its last attempt)
 */
public record QueueStats(long queued, long running, long dead, long groupsWaiting) {
}
