package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import dev.lockstep.LockSnapshot;
import dev.lockstep.internal.redis.FeatureScripts;
import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.internal.redis.ScriptSet;

/**
 * The lock's Lua scripts with typed arguments, and the permits' twins of each (chosen by
 * {@link LockKeys#isPermits()}); each call is one round trip.
 */
final class LockScripts extends FeatureScripts {

	/**
	 * The lock's scripts, each after the lock values' library, joining the wait queue
	 * ({@code wait-queue.lua}), the watchdog's batch ({@code renew-batch.lua}) and the hand-off
	 * ({@code handoff.lua}).
	 */
	private static final ScriptSet SCRIPTS = new ScriptSet(LockScripts.class, RedisScripts.LOCK_VALUES, "wait-queue.lua",
			"renew-batch.lua", "handoff.lua")
		.returning(ScriptOutputType.INTEGER, "acquire.lua", "release.lua", "cancel.lua", "queue-touch.lua")
		.returning(ScriptOutputType.MULTI, "renew.lua", "heartbeat.lua", "state.lua");

	/**
	 * The permits' scripts, each after the lock values' library, joining the wait queue
	 * ({@code wait-queue.lua}), the watchdog's batch ({@code renew-batch.lua}) and their shared
	 * functions ({@code permit-common.lua}).
	 */
	private static final ScriptSet PERMITS = new ScriptSet(LockScripts.class, RedisScripts.LOCK_VALUES, "wait-queue.lua",
			"renew-batch.lua", "permit-common.lua")
		.returning(ScriptOutputType.INTEGER, "permit-acquire.lua", "permit-release.lua", "permit-cancel.lua")
		.returning(ScriptOutputType.MULTI, "permit-renew.lua", "permit-heartbeat.lua", "permit-state.lua");

	private final String channelPrefix;

	LockScripts(RedisScripts redis, String channelPrefix) {
		super(redis, SCRIPTS, PERMITS);
		this.channelPrefix = channelPrefix;
	}

	/** The lock as Redis holds it and the first {@code maxWaiters} queue entries; see state.lua. */
	CompletableFuture<LockSnapshot.KeyState> state(LockKeys keys, int maxWaiters) {
		return this.<List<Object>>run("state.lua", keys.lockAndQueue(), List.of(Integer.toString(maxWaiters)))
			.thenApply((reply) -> {
				String value = ScriptSet.text(reply.get(0));
				long leaseLeft = (Long) reply.get(1);
				List<String> waiters = new ArrayList<>();
				for (int i = 3; i < reply.size(); i++) {
					waiters.add(ownerOfEntry(ScriptSet.text(reply.get(i))));
				}
				String[] parts = value.split(":");
				boolean held = parts.length == 3;
				return new LockSnapshot.KeyState(keys.key(), held ? parts[0] : null, held ? Long.valueOf(parts[2]) : null,
						(held && leaseLeft >= 0) ? Duration.ofMillis(leaseLeft) : null, waiters, (Long) reply.get(2));
			});
	}

	/** The first {@code max} raw queue entries ({@code <instance>:<sequence>:<grant lease>}). */
	CompletableFuture<List<String>> queue(LockKeys keys, int max) {
		int first = keys.isPermits() ? 2 : 3;
		return this.<List<Object>>run(keys.isPermits() ? "permit-state.lua" : "state.lua", keys.lockAndQueue(),
				List.of(Integer.toString(max)))
			.thenApply((reply) -> reply.subList(first, reply.size()).stream().map(ScriptSet::text).toList());
	}

	/** How many hold a permit of {@code keys} now (lease running on the server's clock) and how many wait. */
	CompletableFuture<long[]> permitCount(LockKeys keys) {
		return this.<List<Object>>run("permit-state.lua", keys.lockAndQueue(), List.of("0"))
			.thenApply((reply) -> new long[] { (Long) reply.get(0), (Long) reply.get(1) });
	}

	private static String ownerOfEntry(String entry) {
		int last = entry.lastIndexOf(':');
		return (last > 0) ? entry.substring(0, last) : entry;
	}

	/** The token if the lock was taken, 0 if queued ({@code entry} non-empty) or not taken. */
	CompletableFuture<Long> acquire(LockKeys keys, String owner, long leaseMillis, String entry, long queueTtlMillis) {
		if (keys.isPermits()) {
			return run("permit-acquire.lua", List.of(keys.lock(), keys.queue(), keys.counter()), List.of(owner,
					Long.toString(leaseMillis), entry, Long.toString(queueTtlMillis), this.channelPrefix,
					Integer.toString(keys.permits())));
		}
		return run("acquire.lua", keys.lockAndQueue(), List.of(owner, Long.toString(leaseMillis), entry,
				Long.toString(queueTtlMillis), this.channelPrefix));
	}

	/**
	 * 1 if the owner's lock, under {@code fencingToken} (any token if 0: an attempt given up before
	 * its reply), was released (and handed on), 0 if the owner no longer held it under that token.
	 * Sent also while the connection is down, once Lettuce reconnects: nobody waits for a release,
	 * and it frees the lock for the next holder sooner than its lease would.
	 */
	CompletableFuture<Long> release(LockKeys keys, String owner, long fencingToken) {
		return runAfterReconnect(keys.isPermits() ? "permit-release.lua" : "release.lua", allOf(keys), List.of(value(owner, fencingToken), this.channelPrefix));
	}

	/**
	 * Confirms a lock handed over to {@code owner} under {@code fencingToken} and extends it to
	 * {@code leaseMillis}: 1 if the owner holds it under that token, 0 if not (the grant ran out).
	 */
	CompletableFuture<Long> confirm(LockKeys keys, String owner, long fencingToken, long leaseMillis) {
		return this.<List<Long>>run(keys.isPermits() ? "permit-renew.lua" : "renew.lua",
				keys.isPermits() ? List.of(keys.lock(), keys.counter()) : List.of(keys.lock()),
				List.of(value(owner, fencingToken), Long.toString(leaseMillis)))
			.thenApply((renewed) -> renewed.get(0));
	}

	/**
	 * Releases the lock for whoever holds it if that holder's instance is {@code holderInstance} and
	 * its token {@code fencingToken} (read first, then released by its exact value, so a lock taken
	 * again in between is left alone), handing it on as its holder's release would: 1 if released.
	 */
	CompletableFuture<Long> releaseHeldBy(LockKeys keys, String holderInstance, long fencingToken) {
		return this.<List<Object>>run("state.lua", keys.lockAndQueue(), List.of("1")).thenCompose((reply) -> {
			String current = ScriptSet.text(reply.get(0));
			String[] parts = current.split(":");
			if (parts.length != 3 || !parts[0].equals(holderInstance) || !parts[2].equals(Long.toString(fencingToken))) {
				return CompletableFuture.completedFuture(0L);
			}
			return this.<Long>run("release.lua", keys.all(), List.of(current, this.channelPrefix));
		});
	}

	/** A lock key's value: '<owner id>:<fencing token>', as the lock scripts write it; any token if 0. */
	private static String value(String owner, long fencingToken) {
		return owner + ":" + ((fencingToken > 0) ? Long.toString(fencingToken) : "*");
	}

	/**
	 * The token if the lock was handed to the waiter before it left the queue, else 0. Sent also
	 * while the connection is down, once Lettuce reconnects: it undoes a wait that ended.
	 */
	CompletableFuture<Long> cancel(LockKeys keys, String owner, String entry) {
		return runAfterReconnect(keys.isPermits() ? "permit-cancel.lua" : "cancel.lua", allOf(keys), List.of(owner, entry, this.channelPrefix));
	}

	/**
	 * For each lock (all in one slot, all locks or all permits), 1 if its lease was extended, 0 if
	 * it is no longer owned.
	 */
	CompletableFuture<List<Long>> renew(List<LockOwnership> locks) {
		boolean permits = locks.get(0).keys().isPermits();
		List<String> keys = new ArrayList<>(locks.size() * 2);
		List<String> args = new ArrayList<>(locks.size() * 2);
		for (LockOwnership lock : locks) {
			keys.add(lock.keys().lock());
			args.add(value(lock.owner(), lock.fencingToken()));
		}
		for (LockOwnership lock : locks) {
			if (permits) {
				keys.add(lock.keys().counter());
			}
			args.add(Long.toString(lock.leaseNanos() / 1_000_000));
		}
		return run(permits ? "permit-renew.lua" : "renew.lua", keys, args);
	}

	/** A lock's three keys; a permit key's four (its token counter too). */
	private static List<String> allOf(LockKeys keys) {
		return keys.isPermits() ? List.of(keys.lock(), keys.queue(), keys.alive(), keys.counter()) : keys.all();
	}

	/**
	 * The lock's value ('owner:token', or null when nobody holds it), its PTTL, then those of
	 * {@code entries} that are no longer queued.
	 */
	CompletableFuture<List<@Nullable Object>> heartbeat(LockKeys keys, long livenessMillis, long queueTtlMillis,
			List<String> entries) {
		List<String> args = new ArrayList<>(3 + entries.size());
		args.add(Long.toString(livenessMillis));
		args.add(Long.toString(queueTtlMillis));
		args.add(this.channelPrefix);
		args.addAll(entries);
		return run(keys.isPermits() ? "permit-heartbeat.lua" : "heartbeat.lua", allOf(keys), args);
	}

	/** Renews the time-to-live of a wait queue (a lock's or a permit key's); see queue-touch.lua. */
	CompletableFuture<Long> touchQueue(LockKeys keys, long queueTtlMillis) {
		return run("queue-touch.lua", List.of(keys.queue()), List.of(Long.toString(queueTtlMillis)));
	}

}
