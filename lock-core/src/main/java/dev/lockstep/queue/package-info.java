/**
 * Serial queues: {@link dev.lockstep.SerialQueue} on Redis ({@link dev.lockstep.queue.RedisSerialQueue}),
 * the workers that run a queue's tasks on this instance, and the registration of
 * {@link dev.lockstep.annotation.SerialQueueListener} methods. Not API: the auto-configuration
 * builds these.
 */
@NullMarked
package dev.lockstep.queue;

import org.jspecify.annotations.NullMarked;
