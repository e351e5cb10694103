/**
 * Serial queues on Redis: {@link dev.lockstep.queue.RedisSerialQueue} (the
 * {@link dev.lockstep.SerialQueue} and {@link dev.lockstep.SerialQueueRegistry} of an application,
 * with the workers that run a queue's tasks on this instance), its settings
 * ({@link dev.lockstep.queue.QueueSettings}), and {@link dev.lockstep.queue.SerialQueueListeners},
 * which registers {@link dev.lockstep.annotation.SerialQueueListener} methods. The auto-configuration
 * builds these; code without Spring Boot may build them itself, and register a listener without the
 * annotation with {@link dev.lockstep.queue.RedisSerialQueue#listen} and a
 * {@link dev.lockstep.queue.TaskHandler}. Everything else here is package-private.
 */
@NullMarked
package dev.lockstep.queue;

import org.jspecify.annotations.NullMarked;
