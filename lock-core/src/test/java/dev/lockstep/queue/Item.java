package dev.lockstep.queue;

/** The payload the queue tests submit: its group's sequence number and how long it works. */
record Item(String group, int sequence, long workMillis) {
}
