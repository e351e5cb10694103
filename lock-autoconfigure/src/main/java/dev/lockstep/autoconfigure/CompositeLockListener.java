package dev.lockstep.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.internal.IsolatedListener;

/** Passes each event to every listener bean, in order; a failing listener does not stop the others. */
final class CompositeLockListener implements LockListener {

	private final List<LockListener> listeners;

	CompositeLockListener(List<LockListener> listeners) {
		this.listeners = listeners.stream().<LockListener>map(IsolatedListener::new).toList();
	}

	@Override
	public void acquired(String key, long fencingToken, Duration waited) {
		each((listener) -> listener.acquired(key, fencingToken, waited));
	}

	@Override
	public void notAcquired(String key, Duration waited) {
		each((listener) -> listener.notAcquired(key, waited));
	}

	@Override
	public void released(String key, Duration held) {
		each((listener) -> listener.released(key, held));
	}

	@Override
	public void lost(LockLostEvent event) {
		each((listener) -> listener.lost(event));
	}

	@Override
	public void renewedLate(String key, Duration leaseLeft) {
		each((listener) -> listener.renewedLate(key, leaseLeft));
	}

	@Override
	public void jobSkipped(String job, String reason) {
		each((listener) -> listener.jobSkipped(job, reason));
	}

	@Override
	public void jobRan(String job, Duration took, boolean succeeded) {
		each((listener) -> listener.jobRan(job, took, succeeded));
	}

	@Override
	public void taskStarted(String queue, Duration waited) {
		each((target) -> target.taskStarted(queue, waited));
	}

	@Override
	public void taskEnded(String queue, String outcome, Duration ran) {
		each((target) -> target.taskEnded(queue, outcome, ran));
	}

	private void each(Consumer<LockListener> event) {
		this.listeners.forEach(event);
	}

}
