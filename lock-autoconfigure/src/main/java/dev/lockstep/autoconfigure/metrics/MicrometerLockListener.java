package dev.lockstep.autoconfigure.metrics;

import java.time.Duration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;

/**
 * Lockstep events as Micrometer meters. Lock keys are not tags (tenant-by-entity keys would
 * explode the number of series); job names are.
 */
public class MicrometerLockListener implements LockListener {

	private final MeterRegistry registry;

	private final Timer acquired;

	private final Timer notAcquired;

	private final Timer held;

	private final Counter lost;

	private final Counter renewedLate;

	public MicrometerLockListener(MeterRegistry registry) {
		this.registry = registry;
		this.acquired = Timer.builder("lockstep.lock.wait").description("Time spent waiting for locks")
			.tag("outcome", "acquired").register(registry);
		this.notAcquired = Timer.builder("lockstep.lock.wait").description("Time spent waiting for locks")
			.tag("outcome", "not_acquired").register(registry);
		this.held = Timer.builder("lockstep.lock.held").description("Time locks were held").register(registry);
		this.lost = Counter.builder("lockstep.lock.lost").description("Locks found gone while still believed held")
			.register(registry);
		this.renewedLate = Counter.builder("lockstep.lock.renewed.late")
			.description("Watchdog renewals confirmed with under a third of the lease left")
			.register(registry);
	}

	@Override
	public void acquired(String key, long fencingToken, Duration waited) {
		this.acquired.record(waited);
	}

	@Override
	public void notAcquired(String key, Duration waited) {
		this.notAcquired.record(waited);
	}

	@Override
	public void released(String key, Duration heldFor) {
		this.held.record(heldFor);
	}

	@Override
	public void lost(LockLostEvent event) {
		this.lost.increment();
	}

	@Override
	public void renewedLate(String key, Duration leaseLeft) {
		this.renewedLate.increment();
	}

	@Override
	public void jobRan(String job, Duration took, boolean succeeded) {
		Timer.builder("lockstep.job.runs").description("Guarded job runs on this instance")
			.tag("job", job).tag("outcome", succeeded ? "success" : "failure").register(this.registry).record(took);
	}

	@Override
	public void jobSkipped(String job, String reason) {
		Counter.builder("lockstep.job.skipped").description("Guarded job firings left to another instance")
			.tag("job", job).register(this.registry).increment();
	}

	@Override
	public void taskStarted(String queue, Duration waited) {
		Timer.builder("lockstep.queue.wait").description("Time from a task's submit to its start")
			.tag("queue", queue).register(this.registry).record(waited);
	}

	@Override
	public void taskEnded(String queue, String outcome, Duration ran) {
		Timer.builder("lockstep.queue.run").description("Runs of queue tasks on this instance, by outcome")
			.tag("queue", queue).tag("outcome", outcome).register(this.registry).record(ran);
		if (outcome.equals("retry") || outcome.equals("dead")) {
			Counter.builder("lockstep.queue.failures").description("Task runs that threw (retried or dead)")
				.tag("queue", queue).register(this.registry).increment();
		}
		if (outcome.equals("dead")) {
			Counter.builder("lockstep.queue.dead").description("Tasks moved to the dead letters")
				.tag("queue", queue).register(this.registry).increment();
		}
	}

}
