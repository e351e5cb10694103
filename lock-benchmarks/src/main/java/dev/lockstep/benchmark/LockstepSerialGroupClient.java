package dev.lockstep.benchmark;

import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.SerialGroups;
import dev.lockstep.group.LockServiceSerialGroups;
import dev.lockstep.lock.RedisLockService;

/** Lockstep's {@link SerialGroups} on a {@link RedisLockService} of its own, as one instance runs them. */
final class LockstepSerialGroupClient implements SerialGroupClient {

	/** Longer than any turn a working run waits for; a wait this long means something is broken. */
	private static final Duration WAIT = Duration.ofMinutes(1);

	private final LettuceConnectionFactory connections;

	private final RedisLockService locks;

	private final SerialGroups groups;

	LockstepSerialGroupClient(String host, int port) {
		this.connections = BenchmarkRedis.connect(host, port);
		this.locks = LockstepServices.locks(this.connections);
		this.groups = new LockServiceSerialGroups(this.locks);
	}

	@Override
	public void run(String group, Runnable task) throws Exception {
		this.groups.call(group, WAIT, () -> {
			task.run();
			return null;
		});
	}

	@Override
	public void close() {
		this.locks.stop();
		this.connections.destroy();
	}

}
