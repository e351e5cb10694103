package dev.lockstep.autoconfigure.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;

/**
 * Remembers the locks this instance lost within a recent window, and the renewals that came late
 * (confirmed with under a third of the lease left: the step before a loss), for the health
 * contributor and the endpoint. Keeps at most {@value #MAX_REMEMBERED} of each.
 */
public final class RecentLockLosses implements LockListener {

	static final int MAX_REMEMBERED = 100;

	private final Duration window;

	private final Clock clock;

	private final Deque<Loss> losses = new ArrayDeque<>();

	private final Deque<LateRenewal> lateRenewals = new ArrayDeque<>();

	public RecentLockLosses(Duration window) {
		this(window, Clock.systemUTC());
	}

	RecentLockLosses(Duration window, Clock clock) {
		this.window = window;
		this.clock = clock;
	}

	@Override
	public void lost(LockLostEvent event) {
		synchronized (this.losses) {
			this.losses.addFirst(new Loss(event.key(), this.clock.instant()));
			while (this.losses.size() > MAX_REMEMBERED) {
				this.losses.removeLast();
			}
		}
	}

	@Override
	public void renewedLate(String key, Duration leaseLeft) {
		synchronized (this.lateRenewals) {
			this.lateRenewals.addFirst(new LateRenewal(key, leaseLeft, this.clock.instant()));
			while (this.lateRenewals.size() > MAX_REMEMBERED) {
				this.lateRenewals.removeLast();
			}
		}
	}

	/** How far back {@link #losses()} and {@link #lateRenewals()} look. */
	public Duration window() {
		return this.window;
	}

	/** The losses within the window, newest first. */
	public List<Loss> losses() {
		Instant since = this.clock.instant().minus(this.window);
		synchronized (this.losses) {
			this.losses.removeIf((loss) -> loss.at().isBefore(since));
			return List.copyOf(this.losses);
		}
	}

	/** The late renewals within the window, newest first. */
	public List<LateRenewal> lateRenewals() {
		Instant since = this.clock.instant().minus(this.window);
		synchronized (this.lateRenewals) {
			this.lateRenewals.removeIf((late) -> late.at().isBefore(since));
			return List.copyOf(this.lateRenewals);
		}
	}

	/**
	 * One renewal that came late.
	 * @param key the lock's key
	 * @param leaseLeft how much of its lease was left when the renewal was confirmed
	 * @param at when
	 */
	public record LateRenewal(String key, Duration leaseLeft, Instant at) {
	}

	/**
	 * One lost lock.
	 * @param key the lock's key
	 * @param at when this instance learnt of the loss
	 */
	public record Loss(String key, Instant at) {
	}

}
