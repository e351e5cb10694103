package dev.lockstep.queue;

import dev.lockstep.SerialQueueRegistry;

/**
 * One group of a queue as the monitoring views show it ({@link SerialQueueRegistry#busiestGroups}).
 * @param group the group's key
 * @param queued its tasks waiting (a running one not counted)
 * @param running whether one of its tasks runs now
 */
public record QueueGroup(String group, long queued, boolean running) implements SerialQueueRegistry.Group {
}
