package dev.lockstep.queue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.lock.RedisConnections;

/**
 * A child JVM standing for one worker instance of the queue soak:
 * {@code <host> <port> <prefix> <queue> <instance> <concurrency> <lease ms>} runs the queue's
 * {@link Item} tasks, printing {@code S <id> <group> <sequence> <attempt> <nanos> <last error>} as each attempt
 * begins and {@code E <id> <attempt> <nanos> <current>} as it ends ({@link System#nanoTime()} is
 * one clock for every process of the machine; {@code current}: whether the attempt was still
 * current at its end). It halts when the JVM that started it dies.
 */
final class SoakWorkerProcess {

	static final java.util.List<String> JVM_OPTIONS = java.util.List.of("-Xmx160m", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1");

	private SoakWorkerProcess() {
	}

	public static void main(String[] args) throws Exception {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));
		LettuceConnectionFactory factory = RedisConnections.standalone(args[0], Integer.parseInt(args[1]));
		JsonMapper json = JsonMapper.builder().build();
		RedisSerialQueue queue = new RedisSerialQueue(factory, json);
		queue.setKeyPrefix(args[2]);
		queue.setInstanceId(args[4]);
		queue.setDefaults(new QueueSettings(Duration.ofMillis(Long.parseLong(args[6])), 5, Duration.ofMillis(50),
				Duration.ofSeconds(30)));
		queue.listen(args[3], Integer.parseInt(args[5]), (task, payload) -> {
			Item item = json.readValue(payload, Item.class);
			System.out.println("S " + task.id() + " " + item.group() + " " + item.sequence() + " " + task.attempt() + " "
					+ System.nanoTime() + " " + task.lastError());
			LockSupport.parkNanos(item.workMillis() * 1_000_000L);
			System.out.println("E " + task.id() + " " + task.attempt() + " " + System.nanoTime() + " " + task.isCurrent());
		}, "soak worker " + args[4]);
		queue.start();
		System.out.println("READY");
		new CountDownLatch(1).await();
	}

}
