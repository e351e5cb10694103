package dev.lockstep.benchmark;

/**
 * A task of scenario G, as submitted: its group, place in the group, how long it works and when it
 * was submitted (wall-clock microseconds).
 */
record QueueTask(int group, int sequence, long workMicros, long submittedMicros) {
}
