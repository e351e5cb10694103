package dev.lockstep.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;

/** Passes each event to every listener bean, in order; a failing listener does not stop the others. */
final class CompositeLockListener implements LockListener {

	private static final Logger logger = LoggerFactory.getLogger(CompositeLockListener.class);

	private final List<LockListener> listeners;

	CompositeLockListener(List<LockListener> listeners) {
		this.listeners = List.copyOf(listeners);
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
	public void jobSkipped(String job, String reason) {
		each((listener) -> listener.jobSkipped(job, reason));
	}

	private void each(java.util.function.Consumer<LockListener> call) {
		for (LockListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("LockListener {} failed", listener, ex);
			}
		}
	}

}
