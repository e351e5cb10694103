package dev.lockstep.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import dev.lockstep.LockSnapshot;
import dev.lockstep.redis.LuaScript;
import dev.lockstep.redis.RedisScripts;

/** The lock's Lua scripts with typed arguments; each call is one round trip. */
final class LockScripts {

	private static final LuaScript ACQUIRE = load(ScriptOutputType.INTEGER, "acquire.lua");

	private static final LuaScript RELEASE = load(ScriptOutputType.INTEGER, "release.lua");

	private static final LuaScript CANCEL = load(ScriptOutputType.INTEGER, "cancel.lua");

	private static final LuaScript RENEW = load(ScriptOutputType.MULTI, "renew.lua");

	private static final LuaScript HEARTBEAT = load(ScriptOutputType.MULTI, "heartbeat.lua");

	private static final LuaScript STATE = load(ScriptOutputType.MULTI, "state.lua");

	private final RedisScripts redis;

	private final String channelPrefix;

	LockScripts(RedisScripts redis, String channelPrefix) {
		this.redis = redis;
		this.channelPrefix = channelPrefix;
	}

	/** Loads the scripts into Redis ahead of the first call; see {@link RedisScripts#preload}. */
	void preload(Duration wait) {
		this.redis.preload(List.of(ACQUIRE, RELEASE, CANCEL, RENEW, HEARTBEAT, STATE), wait);
	}

	private static LuaScript load(ScriptOutputType output, String name) {
		return LuaScript.load(LockScripts.class, output, RedisScripts.LOCK_VALUES, "handoff.lua", name);
	}

	/** The lock as Redis holds it and the first {@code maxWaiters} queue entries; see state.lua. */
	CompletableFuture<LockSnapshot.KeyState> state(LockKeys keys, int maxWaiters) {
		return this.redis.<List<Object>>run(STATE, keys.lockAndQueue(), List.of(Integer.toString(maxWaiters)))
			.thenApply((reply) -> {
				String value = text(reply.get(0));
				long leaseLeft = (Long) reply.get(1);
				List<String> waiters = new ArrayList<>();
				for (int i = 3; i < reply.size(); i++) {
					waiters.add(ownerOfEntry(text(reply.get(i))));
				}
				String[] parts = value.split(":");
				boolean held = parts.length == 3;
				return new LockSnapshot.KeyState(keys.key(), held ? parts[0] : null, held ? Long.valueOf(parts[2]) : null,
						(held && leaseLeft >= 0) ? Duration.ofMillis(leaseLeft) : null, waiters, (Long) reply.get(2));
			});
	}

	/** The first {@code max} raw queue entries ({@code <instance>:<sequence>:<grant lease>}). */
	CompletableFuture<List<String>> queue(LockKeys keys, int max) {
		return this.redis.<List<Object>>run(STATE, keys.lockAndQueue(), List.of(Integer.toString(max)))
			.thenApply((reply) -> reply.subList(3, reply.size()).stream().map(LockScripts::text).toList());
	}

	private static String ownerOfEntry(String entry) {
		int last = entry.lastIndexOf(':');
		return (last > 0) ? entry.substring(0, last) : entry;
	}

	private static String text(Object part) {
		return (part instanceof byte[] bytes) ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(part);
	}

	/** The token if the lock was taken, 0 if queued ({@code entry} non-empty) or not taken. */
	CompletableFuture<Long> acquire(LockKeys keys, String owner, long leaseMillis, String entry, long queueTtlMillis) {
		return this.redis.run(ACQUIRE, keys.lockAndQueue(), List.of(owner, Long.toString(leaseMillis), entry,
				Long.toString(queueTtlMillis), this.channelPrefix));
	}

	/**
	 * 1 if the owner's lock, under {@code fencingToken} (any token if 0: an attempt given up before
	 * its reply), was released (and handed on), 0 if the owner no longer held it under that token.
	 */
	CompletableFuture<Long> release(LockKeys keys, String owner, long fencingToken) {
		return this.redis.run(RELEASE, keys.all(), List.of(value(owner, fencingToken), this.channelPrefix));
	}

	/**
	 * Confirms a lock handed over to {@code owner} under {@code fencingToken} and extends it to
	 * {@code leaseMillis}: 1 if the owner holds it under that token, 0 if not (the grant ran out).
	 */
	CompletableFuture<Long> confirm(LockKeys keys, String owner, long fencingToken, long leaseMillis) {
		return this.redis.<List<Long>>run(RENEW, List.of(keys.lock()),
				List.of(value(owner, fencingToken), Long.toString(leaseMillis)))
			.thenApply((renewed) -> renewed.get(0));
	}

	/**
	 * Releases the lock for whoever holds it if that holder's instance is {@code holderInstance} and
	 * its token {@code fencingToken} (read first, then released by its exact value, so a lock taken
	 * again in between is left alone), handing it on as its holder's release would: 1 if released.
	 */
	CompletableFuture<Long> releaseHeldBy(LockKeys keys, String holderInstance, long fencingToken) {
		return this.redis.<List<Object>>run(STATE, keys.lockAndQueue(), List.of("1")).thenCompose((reply) -> {
			String current = text(reply.get(0));
			String[] parts = current.split(":");
			if (parts.length != 3 || !parts[0].equals(holderInstance) || !parts[2].equals(Long.toString(fencingToken))) {
				return CompletableFuture.completedFuture(0L);
			}
			return this.redis.<Long>run(RELEASE, keys.all(), List.of(current, this.channelPrefix));
		});
	}

	/** A lock key's value: '<owner id>:<fencing token>', as the lock scripts write it; any token if 0. */
	private static String value(String owner, long fencingToken) {
		return owner + ":" + ((fencingToken > 0) ? Long.toString(fencingToken) : "*");
	}

	/** The token if the lock was handed to the waiter before it left the queue, else 0. */
	CompletableFuture<Long> cancel(LockKeys keys, String owner, String entry) {
		return this.redis.run(CANCEL, keys.all(), List.of(owner, entry, this.channelPrefix));
	}

	/** For each lock (all in one slot), 1 if its lease was extended, 0 if it is no longer owned. */
	CompletableFuture<List<Long>> renew(List<HeldLock> locks) {
		List<String> keys = new ArrayList<>(locks.size());
		List<String> args = new ArrayList<>(locks.size() * 2);
		for (HeldLock lock : locks) {
			keys.add(lock.keys().lock());
			args.add(value(lock.owner(), lock.fencingToken()));
		}
		for (HeldLock lock : locks) {
			args.add(Long.toString(lock.leaseNanos() / 1_000_000));
		}
		return this.redis.run(RENEW, keys, args);
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
		return this.redis.run(HEARTBEAT, keys.all(), args);
	}

	boolean isCluster() {
		return this.redis.isCluster();
	}

}
