package dev.lockstep.queue;

/**
 * One group of a queue as the monitoring views show it; public for the actuator endpoint.
 * @param group the group's key
 * @param queued its tasks waiting (a running one not counted)
 * @param running whether one of its tasks runs now
 */
public record QueueGroup(String group, long queued, boolean running) {
}
