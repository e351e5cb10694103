package dev.lockstep.queue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

import dev.lockstep.internal.LogText;
import dev.lockstep.internal.NamingRules;

/**
 * A task about to be stored: its group and deduplication id bounded like lock keys, its payload
 * written as JSON within {@code lockstep.queue.max-payload-size}, its id drawn. Every refusal comes
 * before anything is stored and names the queue.
 */
final class NewTasks {

	private NewTasks() {
	}

	/** The payload as JSON, after the checks; an {@link IllegalArgumentException} naming what is wrong otherwise. */
	static String json(JsonMapper jsonMapper, DataSize maxPayloadSize, String queue, String group, Object payload,
			@Nullable String deduplicationId) {
		Assert.hasText(group, () -> "Group of a task for queue '" + queue + "' must not be blank");
		refuseLonger("Group", queue, group);
		if (deduplicationId != null) {
			refuseLonger("Deduplication id", queue, deduplicationId);
		}
		Assert.notNull(payload, () -> "Payload of a task for queue '" + queue + "' must not be null");
		String json;
		try {
			json = jsonMapper.writeValueAsString(payload);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("The payload of a task for queue '" + LogText.of(queue) + "' (group '"
					+ LogText.of(group) + "'), a " + payload.getClass().getName() + ", cannot be written as JSON: "
					+ ex.getOriginalMessage(), ex);
		}
		int bytes = json.getBytes(StandardCharsets.UTF_8).length;
		if (bytes > maxPayloadSize.toBytes()) {
			throw new IllegalArgumentException("The payload of a task for queue '" + LogText.of(queue) + "' (group '"
					+ LogText.of(group) + "'), a " + payload.getClass().getName() + ", is " + bytes
					+ " bytes as JSON, over the largest allowed, " + maxPayloadSize.toBytes()
					+ " bytes (lockstep.queue.max-payload-size); nothing was stored");
		}
		return json;
	}

	/**
	 * A group to pause or resume: null (the whole queue) or not empty, and bounded as a task's group
	 * is (a paused group is kept in Redis until resumed).
	 * @param action {@code pause} or {@code resume}, for the message
	 */
	static void checkGroupToPauseOrResume(String action, String queue, @Nullable String group) {
		Assert.isTrue(group == null || !group.isEmpty(),
				() -> "Group must not be empty (null " + action + "s the whole queue)");
		if (group != null) {
			refuseLonger("Group", "to " + action + " in queue '" + LogText.of(queue) + "'", group, "nothing was changed");
		}
	}

	/**
	 * A queue's name goes into every key and channel of the queue: bounded as its groups are. The
	 * message names the queue by its first 64 characters.
	 */
	static void checkQueueName(String queue) {
		refuseLonger("Queue name", "", queue, "");
	}

	private static void refuseLonger(String what, String queue, String name) {
		refuseLonger(what, "of a task for queue '" + LogText.of(queue) + "'", name, "nothing was stored");
	}

	/** Names from callers go into Redis keys and every task record: bounded like lock keys. */
	private static void refuseLonger(String what, String of, String name, String outcome) {
		int bytes = name.getBytes(StandardCharsets.UTF_8).length;
		if (bytes > NamingRules.MAX_NAME_BYTES) {
			throw new IllegalArgumentException(what + " '" + LogText.of(name.substring(0, Math.min(name.length(), 64)))
					+ "...' " + (of.isEmpty() ? "" : of + " ") + "is " + bytes + " bytes long; at most "
					+ NamingRules.MAX_NAME_BYTES + " bytes are allowed" + (outcome.isEmpty() ? "" : "; " + outcome));
		}
	}

	/** Time-ordered ids: the submit time in base 36, then 12 random base-36 digits. */
	static String newTaskId() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		StringBuilder id = new StringBuilder(Long.toString(System.currentTimeMillis(), 36)).append('-');
		for (int i = 0; i < 12; i++) {
			id.append(Character.forDigit(random.nextInt(36), 36));
		}
		return id.toString();
	}

}
