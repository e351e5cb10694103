package dev.lockstep.autoconfigure.queue;

import java.util.LinkedHashSet;
import java.util.Set;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

import dev.lockstep.QueueStats;
import dev.lockstep.internal.LifecyclePhases;
import dev.lockstep.queue.RedisSerialQueue;

/**
 * Gauges of each queue this instance listens to or configures: {@code lockstep.queue.tasks} by
 * {@code state} (queued, running, dead) and {@code lockstep.queue.groups.waiting}. One read of the
 * queue's counts serves a scrape (at most one read a second per queue); a value Redis cannot give is
 * NaN. Registered once the queue's listeners are, when the context starts.
 */
final class QueueGauges implements SmartLifecycle {

	private final RedisSerialQueue queue;

	private final MeterRegistry registry;

	private final Set<String> configured;

	private volatile boolean running;

	QueueGauges(RedisSerialQueue queue, MeterRegistry registry, Set<String> configured) {
		this.queue = queue;
		this.registry = registry;
		this.configured = configured;
	}

	@Override
	public void start() {
		Set<String> names = new LinkedHashSet<>(this.queue.listenedQueues());
		names.addAll(this.configured);
		names.forEach(this::register);
		this.running = true;
	}

	private void register(String name) {
		CachedStats stats = new CachedStats(this.queue, name);
		gauge("lockstep.queue.tasks", name, "queued", stats, QueueStats::queued, "Tasks of the queue waiting to run");
		gauge("lockstep.queue.tasks", name, "running", stats, QueueStats::running, "Tasks of the queue running");
		gauge("lockstep.queue.tasks", name, "dead", stats, QueueStats::dead, "Tasks of the queue in its dead letters");
		Gauge.builder("lockstep.queue.groups.waiting", stats, (s) -> s.read(QueueStats::groupsWaiting))
			.description("Groups of the queue whose next task waits for a free worker")
			.tag("queue", name)
			.strongReference(true)
			.register(this.registry);
	}

	private void gauge(String meter, String name, String state, CachedStats stats, ToLong count, String description) {
		Gauge.builder(meter, stats, (s) -> s.read(count))
			.description(description)
			.tag("queue", name)
			.tag("state", state)
			.strongReference(true)
			.register(this.registry);
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** After the queue ({@link LifecyclePhases#SERIAL_QUEUE}) has registered its listeners. */
	@Override
	public int getPhase() {
		return LifecyclePhases.QUEUE_GAUGES;
	}

	@FunctionalInterface
	private interface ToLong {

		long of(QueueStats stats);

	}

	/** The counts of one queue, read again when a second old. */
	private static final class CachedStats {

		private final RedisSerialQueue queue;

		private final String name;

		private @Nullable QueueStats stats;

		private long readAt;

		CachedStats(RedisSerialQueue queue, String name) {
			this.queue = queue;
			this.name = name;
		}

		synchronized double read(ToLong count) {
			long now = System.nanoTime();
			if (this.stats == null || now - this.readAt > 1_000_000_000L) {
				try {
					this.stats = this.queue.stats(this.name);
				}
				catch (RuntimeException ex) {
					this.stats = null;
					return Double.NaN;
				}
				finally {
					this.readAt = now;
				}
			}
			return count.of(this.stats);
		}

	}

}
