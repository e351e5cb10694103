package dev.lockstep.benchmark;

import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import dev.lockstep.internal.redis.LuaScript;

/**
 * The floor: the fewest round trips a correct owner-checked lock can make. {@code SET key token
 * NX PX} to take it, a compare-and-delete script (by SHA) to release it, and, when the lock is
 * taken, the same SET retried in a tight loop without sleeping: a busy spin no real service
 * should run, but nothing that waits more politely can hand over faster on a free CPU.
 */
final class RawLettuceClient implements LockClient {

	private static final LuaScript RELEASE = LuaScript.load(RawLettuceClient.class, ScriptOutputType.INTEGER,
			"raw-release.lua");

	private static final long LEASE_MILLIS = 30_000;

	private static final AtomicLong CLIENTS = new AtomicLong();

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	private final String releaseSha;

	private final String clientId = "client" + CLIENTS.incrementAndGet();

	private final AtomicLong sequence = new AtomicLong();

	RawLettuceClient(BenchmarkRedis redis) {
		this.client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
		this.releaseSha = this.commands.scriptLoad(RELEASE.source());
	}

	@Override
	public Hold lock(String key) {
		String lockKey = "bench-raw:" + key;
		// the token makes the release owner-checked: an expired holder cannot delete a successor's lock
		String token = this.clientId + ":" + this.sequence.incrementAndGet();
		SetArgs ifAbsent = SetArgs.Builder.nx().px(LEASE_MILLIS);
		while (!"OK".equals(this.commands.set(lockKey, token, ifAbsent))) {
			Thread.onSpinWait();
		}
		return () -> this.commands.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { lockKey }, token);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
