package dev.lockstep.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

import dev.lockstep.LockListener;
import dev.lockstep.QueueBacklog;
import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialQueueException;
import dev.lockstep.SerialQueueRegistry;
import dev.lockstep.SerialTask;
import dev.lockstep.internal.DaemonThreads;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.IsolatedListener;
import dev.lockstep.internal.LifecyclePhases;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.internal.redis.CallIds;
import dev.lockstep.internal.redis.RedisAddress;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.ReplyWait;
import dev.lockstep.internal.redis.WakeUpSubscription;

/**
 * {@link SerialQueue} on Redis, and the workers that run the queues this instance listens to. A
 * queue lives in one hash slot (one master of a cluster): its scripts move a task between its
 * group, the groups waiting for a worker, the running tasks and the dead letters in one step each.
 * Idle workers wait for a wake-up published when a group's next task may start, or for the moment
 * a lease or retry falls due.
 */
public class RedisSerialQueue implements SerialQueue, SerialQueueRegistry, SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(RedisSerialQueue.class);

	private final RedisConnectionFactory connectionFactory;

	private final RedisScripts redis;

	private final QueueScripts scripts;

	/** Ids of pauses, resumes, redrives and discards, so that one Lettuce sends again after a reconnect does not act twice. */
	private final CallIds callIds = new CallIds();

	private final JsonMapper jsonMapper;

	private String keyPrefix = NamingRules.DEFAULT_KEY_PREFIX;

	private String instanceId = NamingRules.defaultInstanceId();

	private Duration commandTimeout = Duration.ofSeconds(5);

	private Duration shutdownTimeout = Duration.ofSeconds(30);

	private DataSize maxPayloadSize = DEFAULT_MAX_PAYLOAD_SIZE;

	private QueueSettings defaults = QueueSettings.DEFAULTS;

	private Map<String, QueueSettings> queueSettings = Map.of();

	private LockListener listener = new LockListener() {
	};

	private final Map<String, QueueWorkers> workers = new LinkedHashMap<>();

	private @Nullable ScheduledExecutorService timer;

	private @Nullable WakeUpSubscription wakeUps;

	private volatile boolean running;

	/** The largest payload a task may have, as JSON, unless set otherwise: 1 MB. */
	public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);

	/**
	 * @param connectionFactory the Redis connection
	 * @param jsonMapper writes and reads payloads; its default typing, if the application enabled it,
	 * is switched off for payloads: a payload names no class to instantiate, only its listener's
	 * parameter type does
	 */
	public RedisSerialQueue(RedisConnectionFactory connectionFactory, JsonMapper jsonMapper) {
		this.redis = new RedisScripts(connectionFactory);
		this.scripts = new QueueScripts(this.redis);
		this.jsonMapper = jsonMapper.rebuild().deactivateDefaultTyping().build();
		this.connectionFactory = connectionFactory;
	}

	/** Prefix of every key and channel; default {@value NamingRules#DEFAULT_KEY_PREFIX}. */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = NamingRules.keyPrefix("Key prefix", keyPrefix);
	}

	/** This instance's id in task owners and messages; default host, process id and a random suffix. */
	public void setInstanceId(String instanceId) {
		this.instanceId = NamingRules.instanceId("Instance id", instanceId);
	}

	/** Longest wait for one Redis reply; default 5s. */
	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = DurationRules.positive("Command timeout", commandTimeout);
	}

	/** How long a stopping instance lets running tasks finish before it gives them back; default 30s. */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = DurationRules.notNegative("Shutdown timeout", shutdownTimeout);
	}

	/**
	 * The largest payload a task may have, as JSON in UTF-8; a larger one is refused before anything
	 * is stored. Default {@link #DEFAULT_MAX_PAYLOAD_SIZE}.
	 */
	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		Assert.isTrue(maxPayloadSize != null && maxPayloadSize.toBytes() > 0,
				() -> "Max payload size must be positive, was " + maxPayloadSize);
		this.maxPayloadSize = maxPayloadSize;
	}

	/** The settings of every queue without settings of its own. */
	public void setDefaults(QueueSettings defaults) {
		this.defaults = defaults;
	}

	/** Settings of particular queues, by name. */
	public void setQueueSettings(Map<String, QueueSettings> queueSettings) {
		this.queueSettings = Map.copyOf(queueSettings);
	}

	public void setListener(LockListener listener) {
		// a listener that throws must not end a worker or leave a task's run unrecorded
		this.listener = IsolatedListener.of(listener);
	}

	/** For tests: how long {@code queue}'s workers here wait before they wake for a wake-up told to another instance. */
	void hedgeDelay(String queue, Duration delay) {
		this.workers.get(queue).hedgeDelay(delay);
	}

	JsonMapper jsonMapper() {
		return this.jsonMapper;
	}

	@Override
	public String instanceId() {
		return this.instanceId;
	}

	/** Whether {@code queue} has settings of its own ({@link #setQueueSettings}), beside the defaults. */
	@Override
	public boolean hasOwnSettings(String queue) {
		return this.queueSettings.containsKey(queue);
	}

	/** The settings {@code queue} runs with. */
	@Override
	public QueueSettings settings(String queue) {
		return this.queueSettings.getOrDefault(queue, this.defaults);
	}

	/** The queues this instance runs tasks of, in the order they were registered. */
	@Override
	public synchronized List<String> listenedQueues() {
		return List.copyOf(this.workers.keySet());
	}

	/**
	 * Runs the tasks of {@code queue} on this instance with {@code handler}, on {@code concurrency}
	 * threads, from {@link #start()} (at once when started already). One handler per queue and
	 * instance.
	 * @param description what the handler is, for messages (a listener method)
	 */
	public synchronized void listen(String queue, int concurrency, TaskHandler handler, String description) {
		QueueKeys keys = keys(queue);
		Assert.isTrue(concurrency >= 1, () -> "Concurrency of " + description + " must be at least 1, was " + concurrency);
		QueueWorkers existing = this.workers.get(queue);
		if (existing != null) {
			throw new IllegalStateException("Queue '" + queue + "' has two listeners on this instance: "
					+ existing.description() + " and " + description);
		}
		QueueWorkers added = new QueueWorkers(keys, settings(queue), concurrency, handler, description, this.scripts,
				this.commandTimeout, this.instanceId, this.listener, RedisAddress.of(this.connectionFactory));
		this.workers.put(queue, added);
		if (this.running) {
			// the workers start at once, maybe before Redis confirmed the channel's SUBSCRIBE (when this is
			// the first queue listened to, the subscription starts on its own thread): a wake-up published
			// in between goes unheard, so the confirmation makes the idle workers look (QueueWorkers.subscribed)
			this.wakeUps.listen(keys.channel(), (message, pattern) -> added.heard(message), added::subscribed);
			this.wakeUps.start(Duration.ZERO);
			added.start(this.timer);
		}
	}

	@Override
	public String submit(String queue, String group, Object payload) {
		return store(queue, group, payload, null);
	}

	@Override
	public String submit(String queue, String group, Object payload, String deduplicationId) {
		Assert.hasText(deduplicationId, "Deduplication id must not be blank");
		return store(queue, group, payload, deduplicationId);
	}

	private String store(String queue, String group, Object payload, @Nullable String deduplicationId) {
		QueueKeys keys = keys(queue);
		String json = NewTasks.json(this.jsonMapper, this.maxPayloadSize, queue, group, payload, deduplicationId);
		return await(this.scripts.submit(keys, NewTasks.newTaskId(), group, json, deduplicationId,
				settings(queue).deduplicationWindow()), "storing a task for queue '" + queue + "'"
						+ ((deduplicationId != null) ? " (it may be stored all the same: the same submit sent again stores it once)"
								: " (it may be stored all the same: submit with a deduplication id to send it again safely)"));
	}

	@Override
	public Optional<SerialTask> task(String queue, String taskId) {
		Assert.hasText(taskId, "Task id must not be blank");
		return await(this.scripts.task(keys(queue), taskId), "reading task '" + taskId + "' of queue '" + queue + "'")
			.stream()
			.findFirst()
			.map((fields) -> task(queue, fields));
	}

	@Override
	public QueueStats stats(String queue) {
		List<Long> counts = await(this.scripts.stats(keys(queue)), "reading the counts of queue '" + queue + "'");
		return new QueueStats(counts.get(0), counts.get(1), counts.get(2), counts.get(3));
	}

	@Override
	public List<SerialTask> deadLetters(String queue, int max) {
		Assert.isTrue(max >= 0, () -> "Max must not be negative, was " + max);
		if (max == 0) {
			return List.of();
		}
		return await(this.scripts.dead(keys(queue), max), "reading the dead letters of queue '" + queue + "'").stream()
			.map((fields) -> task(queue, fields))
			.toList();
	}

	/**
	 * The queue's busiest groups, as far as they can be seen without a scan: the groups of up to
	 * {@code max} running tasks, of up to {@code max} tasks whose lease ran out (shown as not
	 * running: they wait for a worker to take them back) and up to {@code max} groups waiting for a
	 * worker, most tasks first.
	 */
	@Override
	public List<QueueGroup> busiestGroups(String queue, int max) {
		Assert.isTrue(max > 0, () -> "Max must be positive, was " + max);
		List<QueueGroup> groups = new ArrayList<>(await(this.scripts.groups(keys(queue), max),
				"reading the groups of queue '" + queue + "'"));
		groups.sort(Comparator.comparingLong(QueueGroup::queued).reversed());
		return groups;
	}

	/** Read in one step, two tasks of each group read. */
	@Override
	public QueueBacklog backlog(String queue, int maxGroups) {
		Assert.isTrue(maxGroups > 0, () -> "Max groups must be positive, was " + maxGroups);
		List<Long> reply = await(this.scripts.backlog(keys(queue), maxGroups), "reading the backlog of queue '" + queue + "'");
		return new QueueBacklog(reply.get(0), reply.get(1), (reply.get(2) < 0) ? null : Duration.ofMillis(reply.get(2)),
				(reply.get(3) < 0) ? null : Instant.ofEpochMilli(reply.get(3)), reply.get(4) == 1L);
	}

	@Override
	public boolean redrive(String queue, String taskId) {
		Assert.hasText(taskId, "Task id must not be blank");
		return await(this.scripts.redrive(keys(queue), taskId, this.callIds.next(), callKept()), "redriving task '" + taskId + "' of queue '" + queue + "'") == 1L;
	}

	@Override
	public boolean discard(String queue, String taskId) {
		Assert.hasText(taskId, "Task id must not be blank");
		return await(this.scripts.discard(keys(queue), taskId, this.callIds.next(), callKept()), "discarding task '" + taskId + "' of queue '" + queue + "'") == 1L;
	}

	@Override
	public boolean pause(String queue, @Nullable String group) {
		return changePause(true, queue, group);
	}

	@Override
	public boolean resume(String queue, @Nullable String group) {
		return changePause(false, queue, group);
	}

	/** Pauses or resumes; a call sent again after a reconnect answers as the first (its id kept twice the timeout). */
	private boolean changePause(boolean pause, String queue, @Nullable String group) {
		QueueKeys keys = keys(queue);
		NewTasks.checkGroupToPauseOrResume(pause ? "pause" : "resume", queue, group);
		String callId = this.callIds.next();
		Duration keep = callKept();
		return await(pause ? this.scripts.pause(keys, group, callId, keep) : this.scripts.resume(keys, group, callId, keep),
				(pause ? "pausing " : "resuming ") + what(queue, group)) == 1L;
	}

	/** How long a call's answer is kept for Lettuce to send it again after a reconnect: twice the command timeout. */
	private Duration callKept() {
		return this.commandTimeout.multipliedBy(2);
	}

	@Override
	public boolean isPaused(String queue) {
		return await(this.scripts.paused(keys(queue)), "reading the pauses of queue '" + queue + "'").queue();
	}

	@Override
	public List<String> pausedGroups(String queue) {
		return await(this.scripts.paused(keys(queue)), "reading the pauses of queue '" + queue + "'").groups();
	}

	private static String what(String queue, @Nullable String group) {
		return (group != null) ? "group '" + group + "' of queue '" + queue + "'" : "queue '" + queue + "'";
	}

	private QueueKeys keys(String queue) {
		Assert.hasText(queue, "Queue name must not be blank");
		return QueueKeys.of(this.keyPrefix, queue);
	}

	private static SerialTask task(String queue, QueueScripts.TaskFields fields) {
		return new SerialTask(fields.id(), queue, fields.group(), SerialTask.State.valueOf(fields.state()), fields.attempt(),
				Instant.ofEpochMilli(fields.submittedMillis()), fields.error().isEmpty() ? null : fields.error());
	}

	private <T> T await(CompletableFuture<T> reply, String doing) {
		return new ReplyWait(this.commandTimeout, RedisAddress.of(this.connectionFactory)).await(reply, doing,
				SerialQueueException::new, (ex) -> new SerialQueueException("Interrupted while " + doing, ex));
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(
				DaemonThreads.named("lockstep-queue-timer"));
		this.timer = started;
		this.scripts.preload(this.commandTimeout);
		// a message on a queue's channel says that a group's next task may start, or that another
		// instance's woken worker started one (see QueueWorkers.heard)
		WakeUpSubscription subscription = new WakeUpSubscription(this.connectionFactory, "lockstep-queue-wake-ups",
				"idle workers look every " + IdleWorkers.IDLE_LOOK);
		// each channel's confirmed SUBSCRIBE (also again after a reconnect) makes its idle workers look:
		// wake-ups published before it went unheard
		this.workers.values().forEach((queue) -> subscription.listen(queue.keys().channel(),
				(message, pattern) -> queue.heard(message), queue::subscribed));
		if (!this.workers.isEmpty()) {
			subscription.start(this.commandTimeout);
		}
		this.wakeUps = subscription;
		this.workers.values().forEach((queue) -> queue.start(started));
		this.running = true;
		if (!this.workers.isEmpty()) {
			logger.info("Lockstep runs serial queue(s) {} as instance {}", this.workers.keySet(), this.instanceId);
		}
	}

	/**
	 * Takes no new tasks, lets running ones finish for up to the shutdown timeout and gives back the
	 * rest, so that other instances run them; queued tasks stay for the other instances.
	 */
	@Override
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		long deadline = System.nanoTime() + this.shutdownTimeout.toNanos();
		List<QueueWorkers> all = new ArrayList<>(this.workers.values());
		all.forEach(QueueWorkers::refuseNew);
		all.forEach((queue) -> queue.awaitStopped(deadline));
		this.wakeUps.close();
		this.timer.shutdownNow();
		this.redis.close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Stops before the lock service ({@link LifecyclePhases#LOCK_SERVICE}), which tasks may use, and after the web server. */
	@Override
	public int getPhase() {
		return LifecyclePhases.SERIAL_QUEUE;
	}


}
