package dev.lockstep.benchmark;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import dev.lockstep.SerialGroups;

/**
 * Serial groups the way Redisson offers them: a group is an {@code RFairLock} (first come, first
 * served, watchdog lease) named like Lockstep's group lock. Default settings.
 */
final class RedissonFairLockGroupClient implements SerialGroupClient {

	private final RedissonClient client;

	RedissonFairLockGroupClient(String host, int port) {
		this.client = BenchmarkRedis.redisson(host, port);
	}

	@Override
	public void run(String group, Runnable task) {
		RLock turn = this.client.getFairLock("bench-redisson:" + SerialGroups.LOCK_KEY_PREFIX + group);
		turn.lock();
		try {
			task.run();
		}
		finally {
			turn.unlock();
		}
	}

	@Override
	public void close() {
		this.client.shutdown();
	}

}
