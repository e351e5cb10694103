package dev.lockstep.queue;

import java.util.List;

import dev.lockstep.internal.NamingRules;

/**
 * The Redis names of one queue: the base every key of the queue starts with (one hash tag, so one
 * slot of a cluster; the scripts derive the other keys from it) and the channel its wake-ups go to.
 */
record QueueKeys(String queue, String base, String channel) {

	static QueueKeys of(String keyPrefix, String queue) {
		NamingRules.insideHashTag("Queue name", queue);
		NewTasks.checkQueueName(queue);
		return new QueueKeys(queue, keyPrefix + "{queue:" + queue + "}", keyPrefix + "queue-wake:" + queue);
	}

	List<String> forScripts() {
		return List.of(this.base);
	}

}
