package dev.lockstep.queue;

import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import tools.jackson.databind.jsontype.PolymorphicTypeValidator;

import org.springframework.util.unit.DataSize;

import dev.lockstep.QueueStats;
import dev.lockstep.lock.RedisFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a caller can make a serial queue store and instantiate: payloads over the size limit, and
 * queue names, groups and deduplication ids over 1024 bytes, are refused before Redis sees them, and a payload that names a class is read as plain JSON even when
 * the application's mapper has Jackson's default typing switched on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PayloadBoundsTests {

	private static final String QUEUE = "imports";

	/** What a careless application allows: any class named in the JSON. */
	private static final PolymorphicTypeValidator ANY_CLASS = BasicPolymorphicTypeValidator.builder()
		.allowIfSubType(Object.class)
		.build();

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<RedisSerialQueue> queues = new ArrayList<>();

	@AfterEach
	void stop() {
		this.queues.forEach((queue) -> {
			queue.setShutdownTimeout(Duration.ZERO);
			queue.stop();
		});
	}

	@Test
	void aPayloadOverTheLimitIsRefusedNamingTheQueueAndSizesAndNothingIsStored() {
		RedisSerialQueue queue = queue(JsonMapper.builder().build());
		queue.setMaxPayloadSize(DataSize.ofKilobytes(1));
		queue.start();
		// a string of n characters is n + 2 bytes as JSON: 1022 fill the limit exactly
		String fits = queue.submit(QUEUE, "tenant-1", "a".repeat(1022));
		assertThat(queue.task(QUEUE, fits)).isPresent();
		List<String> keysBefore = this.redis.keys();

		assertThatIllegalArgumentException().isThrownBy(() -> queue.submit(QUEUE, "tenant-1", "a".repeat(1023)))
			.withMessage("The payload of a task for queue 'imports' (group 'tenant-1'), a java.lang.String, is 1025 bytes "
					+ "as JSON, over the largest allowed, 1024 bytes (lockstep.queue.max-payload-size); nothing was stored");
		// UTF-8 bytes count, not characters: 400 three-byte characters are 1202 bytes
		assertThatIllegalArgumentException().isThrownBy(() -> queue.submit(QUEUE, "tenant-2", "€".repeat(400), "dedup-1"))
			.withMessageContaining("is 1202 bytes as JSON");
		assertThat(this.redis.keys()).isEqualTo(keysBefore);
		assertThat(queue.stats(QUEUE)).isEqualTo(new QueueStats(1, 0, 0, 1));
		// the refused submit left no deduplication record: the same id stores a task that fits
		assertThat(queue.submit(QUEUE, "tenant-2", "small", "dedup-1")).isNotEqualTo(fits);
		assertThat(queue.stats(QUEUE).queued()).isEqualTo(2);
	}

	@Test
	void aGroupOrDeduplicationIdOver1024BytesIsRefusedAndNothingIsStored() {
		RedisSerialQueue queue = queue(JsonMapper.builder().build());
		queue.start();
		queue.submit(QUEUE, "g".repeat(1024), "fits", "d".repeat(1024));
		List<String> keysBefore = this.redis.keys();
		assertThatIllegalArgumentException().isThrownBy(() -> queue.submit(QUEUE, "g".repeat(1025), "x"))
			.withMessage("Group '" + "g".repeat(64) + "...' of a task for queue 'imports' is 1025 bytes long; at most "
					+ "1024 bytes are allowed; nothing was stored");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.submit(QUEUE, "tenant-1", "x", "d".repeat(1025)))
			.withMessageStartingWith("Deduplication id 'ddd")
			.withMessageContaining("is 1025 bytes long");
		assertThat(this.redis.keys()).isEqualTo(keysBefore);
	}

	@Test
	void aGroupToPauseOrResumeOver1024BytesIsRefusedNamingItAndNothingIsChanged() {
		RedisSerialQueue queue = queue(JsonMapper.builder().build());
		queue.start();
		String fits = "g".repeat(1024);
		assertThat(queue.pause(QUEUE, fits)).isTrue();
		List<String> keysBefore = this.redis.keys();
		String tooLong = "g".repeat(1025);
		assertThatIllegalArgumentException().isThrownBy(() -> queue.pause(QUEUE, tooLong))
			.withMessage("Group '" + "g".repeat(64) + "...' to pause in queue 'imports' is 1025 bytes long; at most "
					+ "1024 bytes are allowed; nothing was changed");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.resume(QUEUE, tooLong))
			.withMessage("Group '" + "g".repeat(64) + "...' to resume in queue 'imports' is 1025 bytes long; at most "
					+ "1024 bytes are allowed; nothing was changed");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.resume(QUEUE, ""))
			.withMessage("Group must not be empty (null resumes the whole queue)");
		// refused before Redis: not even the call's id was recorded
		assertThat(this.redis.keys()).isEqualTo(keysBefore);
		assertThat(queue.pausedGroups(QUEUE)).containsExactly(fits);
		assertThat(queue.resume(QUEUE, fits)).isTrue();
		assertThat(queue.pausedGroups(QUEUE)).isEmpty();
	}

	@Test
	void aQueueNameOver1024BytesIsRefusedByEveryCallNamingItBeforeRedisIsCalled() throws Exception {
		RedisSerialQueue queue = queue(JsonMapper.builder().build());
		queue.start();
		String fits = "q".repeat(1024);
		String task = queue.submit(fits, "tenant-1", "x");
		assertThat(queue.task(fits, task)).isPresent();
		List<String> keysBefore = this.redis.keys();
		String tooLong = "q".repeat(1025);
		TaskHandler handler = ListenerMethod.of(new Recorder(new LinkedBlockingQueue<>()),
				Recorder.class.getDeclaredMethod("run", Object.class), queue.jsonMapper());
		Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
		calls.put("submit", () -> queue.submit(tooLong, "tenant-1", "x"));
		calls.put("submit with a deduplication id", () -> queue.submit(tooLong, "tenant-1", "x", "d-1"));
		calls.put("listen", () -> queue.listen(tooLong, 1, handler, "Recorder.run"));
		calls.put("pause", () -> queue.pause(tooLong, null));
		calls.put("pause a group", () -> queue.pause(tooLong, "tenant-1"));
		calls.put("resume", () -> queue.resume(tooLong, null));
		calls.put("resume a group", () -> queue.resume(tooLong, "tenant-1"));
		calls.put("isPaused", () -> queue.isPaused(tooLong));
		calls.put("pausedGroups", () -> queue.pausedGroups(tooLong));
		calls.put("task", () -> queue.task(tooLong, task));
		calls.put("stats", () -> queue.stats(tooLong));
		calls.put("deadLetters", () -> queue.deadLetters(tooLong, 10));
		calls.put("busiestGroups", () -> queue.busiestGroups(tooLong, 10));
		calls.put("backlog", () -> queue.backlog(tooLong, 10));
		calls.put("redrive", () -> queue.redrive(tooLong, task));
		calls.put("discard", () -> queue.discard(tooLong, task));
		calls.forEach((call, run) -> assertThatIllegalArgumentException().as(call)
			.isThrownBy(run)
			.withMessage("Queue name '" + "q".repeat(64) + "...' is 1025 bytes long; at most 1024 bytes are allowed"));
		// UTF-8 bytes count, not characters: 342 three-byte characters are 1026 bytes
		assertThatIllegalArgumentException().isThrownBy(() -> queue.stats("€".repeat(342)))
			.withMessageContaining("is 1026 bytes long");
		assertThat(this.redis.keys()).isEqualTo(keysBefore);
		assertThat(queue.listenedQueues()).isEmpty();
	}

	@Test
	void theDefaultLimitIsOneMegabyteAndALimitMustBePositive() {
		RedisSerialQueue queue = queue(JsonMapper.builder().build());
		queue.start();
		assertThat(RedisSerialQueue.DEFAULT_MAX_PAYLOAD_SIZE).isEqualTo(DataSize.ofMegabytes(1));
		queue.submit(QUEUE, "tenant-1", "a".repeat(1024 * 1024 - 2));
		assertThatIllegalArgumentException().isThrownBy(() -> queue.submit(QUEUE, "tenant-1", "a".repeat(1024 * 1024 - 1)))
			.withMessageContaining("is 1048577 bytes as JSON, over the largest allowed, 1048576 bytes");
		assertThatIllegalArgumentException().isThrownBy(() -> queue.setMaxPayloadSize(DataSize.ofBytes(0)))
			.withMessageContaining("Max payload size must be positive");
	}

	@Test
	void aPayloadNamingAClassInAWrapperArrayIsReadAsPlainJsonThoughTheApplicationsMapperHasDefaultTyping()
			throws Exception {
		JsonMapper typing = JsonMapper.builder()
			.activateDefaultTyping(ANY_CLASS, DefaultTyping.NON_FINAL, JsonTypeInfo.As.WRAPPER_ARRAY)
			.build();
		String json = "[\"java.net.URL\",\"http://attacker.invalid/\"]";
		// the control: the application's mapper itself would instantiate the named class
		assertThat(typing.readValue(json, Object.class)).isInstanceOf(URL.class);

		Object read = runThroughListener(typing, List.of("java.net.URL", "http://attacker.invalid/"));
		assertThat(read).isInstanceOf(List.class).isEqualTo(List.of("java.net.URL", "http://attacker.invalid/"));
	}

	@Test
	void aPayloadWithAnAtClassPropertyIsReadAsPlainJsonThoughTheApplicationsMapperHasDefaultTyping() throws Exception {
		JsonMapper typing = JsonMapper.builder()
			.activateDefaultTypingAsProperty(ANY_CLASS, DefaultTyping.NON_FINAL, "@class")
			.build();
		String json = "{\"@class\":\"" + Gadget.class.getName() + "\",\"command\":\"rm -rf /\"}";
		// the control: the application's mapper itself would instantiate the named class
		assertThat(typing.readValue(json, Object.class)).isInstanceOf(Gadget.class);
		int made = Gadget.CREATED.get();

		Object read = runThroughListener(typing, Map.of("@class", Gadget.class.getName(), "command", "rm -rf /"));
		assertThat(read).isInstanceOf(Map.class)
			.isEqualTo(Map.of("@class", Gadget.class.getName(), "command", "rm -rf /"));
		assertThat(Gadget.CREATED).hasValue(made);
	}

	/** Submits {@code payload} and returns what a listener method taking {@code Object} received. */
	private Object runThroughListener(JsonMapper applicationMapper, Object payload) throws Exception {
		RedisSerialQueue queue = queue(applicationMapper);
		BlockingQueue<Object> received = new LinkedBlockingQueue<>();
		Recorder recorder = new Recorder(received);
		queue.listen(QUEUE, 1, ListenerMethod.of(recorder, Recorder.class.getDeclaredMethod("run", Object.class),
				queue.jsonMapper()), "Recorder.run");
		queue.start();
		queue.submit(QUEUE, "tenant-1", payload);
		Object read = received.poll(20, TimeUnit.SECONDS);
		assertThat(read).as("the listener ran").isNotNull();
		return read;
	}

	private RedisSerialQueue queue(JsonMapper mapper) {
		RedisSerialQueue queue = new RedisSerialQueue(this.redis.factory(), mapper);
		queue.setKeyPrefix(this.redis.prefix());
		this.queues.add(queue);
		return queue;
	}

	record Recorder(BlockingQueue<Object> received) {

		void run(Object payload) {
			this.received.add(payload);
		}

	}

	/** Stands for a class whose construction does harm. */
	public static class Gadget {

		static final AtomicInteger CREATED = new AtomicInteger();

		public String command;

		public Gadget() {
			CREATED.incrementAndGet();
		}

	}

}
