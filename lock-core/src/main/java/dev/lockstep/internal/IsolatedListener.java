package dev.lockstep.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;

/**
 * The one listener pipeline: passes each event to every {@link LockListener} of the application, in
 * order, so that their failures cannot break locking: an exception or error (but the JVM's own,
 * such as running out of memory) is logged and otherwise ignored, the next listener still gets the
 * event, and the lock operation carries on. Lost locks and late renewals are reported on a thread
 * of their own ({@code lockstep-events}, one for the JVM, in order): they are found on Redis client
 * and timer threads, which a listener that calls Redis, or blocks, would otherwise stall, holding
 * up every other lock's renewals and the application's own commands. The other events arrive on the
 * thread that acquires or releases (or runs a job or a queue's task). Internal to Lockstep.
 */
public final class IsolatedListener implements LockListener {

	private static final Logger logger = LoggerFactory.getLogger(IsolatedListener.class);

	private static final Executor EVENTS = Executors.newSingleThreadExecutor(DaemonThreads.named("lockstep-events"));

	private final List<LockListener> listeners;

	private IsolatedListener(List<LockListener> listeners) {
		this.listeners = listeners;
	}

	/** {@code listener} isolated; itself when it already is. */
	public static LockListener of(LockListener listener) {
		return of(List.of(listener));
	}

	/** One listener that passes each event to every one of {@code listeners}, in order, each isolated. */
	public static LockListener of(List<? extends LockListener> listeners) {
		List<LockListener> all = new ArrayList<>();
		for (LockListener listener : listeners) {
			if (listener instanceof IsolatedListener isolated) {
				all.addAll(isolated.listeners);
			}
			else {
				all.add(listener);
			}
		}
		return new IsolatedListener(List.copyOf(all));
	}

	@Override
	public void acquired(String key, long fencingToken, Duration waited) {
		call((target) -> target.acquired(key, fencingToken, waited));
	}

	@Override
	public void notAcquired(String key, Duration waited) {
		call((target) -> target.notAcquired(key, waited));
	}

	@Override
	public void released(String key, Duration held) {
		call((target) -> target.released(key, held));
	}

	@Override
	public void lost(LockLostEvent event) {
		EVENTS.execute(() -> call((target) -> target.lost(event)));
	}

	@Override
	public void renewedLate(String key, Duration leaseLeft) {
		EVENTS.execute(() -> call((target) -> target.renewedLate(key, leaseLeft)));
	}

	@Override
	public void jobSkipped(String job, String reason) {
		call((target) -> target.jobSkipped(job, reason));
	}

	@Override
	public void jobRan(String job, Duration took, boolean succeeded) {
		call((target) -> target.jobRan(job, took, succeeded));
	}

	@Override
	public void taskStarted(String queue, Duration waited) {
		call((target) -> target.taskStarted(queue, waited));
	}

	@Override
	public void taskEnded(String queue, String outcome, Duration ran) {
		call((target) -> target.taskEnded(queue, outcome, ran));
	}

	private void call(Consumer<LockListener> event) {
		for (LockListener listener : this.listeners) {
			try {
				event.accept(listener);
			}
			catch (VirtualMachineError ex) {
				throw ex;
			}
			catch (Throwable ex) {
				// an error too (a metrics library of another version: NoSuchMethodError), or a task would be stranded
				logger.warn("LockListener {} failed", listener, ex);
			}
		}
	}

}
