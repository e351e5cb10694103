package dev.lockstep.queue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.lock.RedisConnections;

/**
 * A child JVM standing for one application instance with a serial queue listener:
 * {@code <host> <port> <prefix> <queue> <instance> <concurrency> <lease ms> <groups> <tasks> <group offset>
 * <group step>} submits {@code tasks} {@link Item}s to each of its groups ({@code offset},
 * {@code offset + step}, ... below {@code groups}), prints {@code SUBMITTED <n>}, and runs the queue's
 * tasks until killed, each through a {@link RedisProbe}, printing {@code STARTED <id> <group>
 * <sequence> <attempt>} as each begins. It halts when the JVM that started it dies.
 */
final class QueueWorkerProcess {

	static final java.util.List<String> JVM_OPTIONS = java.util.List.of("-Xmx128m", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1");

	private QueueWorkerProcess() {
	}

	public static void main(String[] args) throws Exception {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));
		LettuceConnectionFactory factory = RedisConnections.standalone(args[0], Integer.parseInt(args[1]));
		String prefix = args[2];
		String queueName = args[3];
		String instance = args[4];
		StringRedisTemplate template = new StringRedisTemplate(factory);
		template.afterPropertiesSet();
		RedisProbe probe = new RedisProbe(template, prefix);
		JsonMapper json = JsonMapper.builder().build();
		RedisSerialQueue queue = new RedisSerialQueue(factory, json);
		queue.setKeyPrefix(prefix);
		queue.setInstanceId(instance);
		queue.setDefaults(new QueueSettings(Duration.ofMillis(Long.parseLong(args[6])), 3, Duration.ofMillis(100),
				Duration.ofMinutes(10)));
		queue.listen(queueName, Integer.parseInt(args[5]), (task, payload) -> {
			Item item = json.readValue(payload, Item.class);
			System.out.println("STARTED " + task.id() + " " + item.group() + " " + item.sequence() + " " + task.attempt());
			probe.run(task.id(), instance, item.group(), item.sequence(), item.workMillis());
		}, "worker process " + instance);
		queue.start();
		int groups = Integer.parseInt(args[7]);
		int tasks = Integer.parseInt(args[8]);
		int step = Integer.parseInt(args[10]);
		int submitted = 0;
		for (int sequence = 0; sequence < tasks; sequence++) {
			for (int group = Integer.parseInt(args[9]); group < groups; group += step) {
				queue.submit(queueName, "group-" + group, new Item("group-" + group, sequence, 3));
				submitted++;
			}
		}
		System.out.println("SUBMITTED " + submitted);
		new CountDownLatch(1).await();
	}

}
