package dev.lockstep.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.lockstep.LockSnapshot;
import dev.lockstep.lock.LockWaiters.Waiter;

/**
 * Reads what an engine holds and waits for, and any key's state in Redis, for monitoring; changes
 * nothing but for an operator's release of a lock its holder left behind ({@link #releaseHeldBy}).
 */
final class LockViews {

	private final String keyPrefix;

	private final Collection<LockOwnership> active;

	private final LockWaiters waiters;

	private final LockScripts scripts;

	private final RedisReplies replies;

	LockViews(String keyPrefix, Collection<LockOwnership> active, LockWaiters waiters, LockScripts scripts, RedisReplies replies) {
		this.keyPrefix = keyPrefix;
		this.active = active;
		this.waiters = waiters;
		this.scripts = scripts;
		this.replies = replies;
	}

	/** The locks and permits held now, for monitoring. */
	List<LockSnapshot.Held> held() {
		long now = System.nanoTime();
		Instant wallNow = Instant.now();
		return this.active.stream()
			.filter(LockOwnership::isActive)
			.map((lock) -> new LockSnapshot.Held(lock.keys().key(), lock.fencingToken(), lock.thread(),
					wallNow.minusNanos(now - lock.acquiredAtNanos()),
					Duration.ofNanos(Math.max(0, lock.confirmedUntilNanos() - now)), lock.renewals(), lock.renewedByWatchdog(),
					lock.keys().permits()))
			.sorted(Comparator.comparing(LockSnapshot.Held::heldSince))
			.toList();
	}

	/** The calls waiting now, with their place in each queue (one LRANGE of the first thousand per key). */
	List<LockSnapshot.Waiting> waiting() {
		long now = System.nanoTime();
		Instant wallNow = Instant.now();
		Map<LockKeys, List<String>> queues = new HashMap<>();
		List<LockSnapshot.Waiting> result = new ArrayList<>();
		for (Waiter waiter : this.waiters.waiting()) {
			List<String> queue = queues.computeIfAbsent(waiter.keys(),
					(keys) -> this.replies.await(this.scripts.queue(keys, 1000), keys, "reading the queue of", null));
			int index = queue.indexOf(waiter.entry());
			result.add(new LockSnapshot.Waiting(waiter.keys().key(), waiter.owner(),
					wallNow.minusNanos(now - waiter.queuedAtNanos()), (index >= 0) ? index + 1 : null));
		}
		result.sort(Comparator.comparing(LockSnapshot.Waiting::waitingSince));
		return result;
	}

	/** Any key's permits as Redis holds them. */
	LockSnapshot.PermitState permitState(String key) {
		LockKeys keys = LockKeys.ofPermits(this.keyPrefix, key, 1);
		long[] counts = this.replies.await(this.scripts.permitCount(keys), keys, "reading the permits of", null);
		return new LockSnapshot.PermitState(key, counts[0], counts[1]);
	}

	/** Any key as Redis holds it: GET, PTTL and the start of the queue. */
	LockSnapshot.KeyState keyState(String key) {
		LockKeys keys = LockKeys.of(this.keyPrefix, key);
		return this.replies.await(this.scripts.state(keys, 100), keys, "reading", null);
	}

	/** Releases the lock if Redis shows it held by that instance under that token; see LockScripts. */
	boolean releaseHeldBy(String key, String holderInstance, long fencingToken) {
		LockKeys keys = LockKeys.of(this.keyPrefix, key);
		return this.replies.await(this.scripts.releaseHeldBy(keys, holderInstance, fencingToken), keys, "releasing", null) == 1L;
	}

}
