package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.SerialGroups;
import dev.lockstep.group.LockServiceSerialGroups;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;

/**
 * A child JVM standing for one application instance that submits calls to a serial group when
 * the test tells it to. Arguments: {@code <host> <port> <prefix> <group> <name> <lease ms>}.
 * Commands arrive on the Redis list {@code <prefix>control:<name>}: {@code join:<label>:<work ms>}
 * starts a call (on a thread of its own, so calls can queue), {@code exit} ends the JVM. Each call
 * appends its label to {@code <prefix>order} inside the group and checks {@code <prefix>inside}
 * to notice two calls at once. Prints {@code READY <instance id>}, {@code QUEUEING <label>} and {@code RAN <label>}.
 */
final class GroupMember {

	private GroupMember() {
	}

	static String groupPrefix(String prefix) {
		return prefix + "lock:";
	}

	public static void main(String[] args) throws Exception {
		LockingWorker.haltWhenOrphaned();
		String prefix = args[2];
		String group = args[3];
		String name = args[4];
		LettuceConnectionFactory connection = RedisConnections.standalone(args[0], Integer.parseInt(args[1]));
		RedisLockService service = RedisConnections.lockService(connection, groupPrefix(prefix),
				(settings) -> settings.setLeaseTime(Duration.ofMillis(Long.parseLong(args[5]))));
		SerialGroups groups = new LockServiceSerialGroups(service);
		// commands and records over a connection of their own, never through the group
		LettuceConnectionFactory control = RedisConnections.standalone(args[0], Integer.parseInt(args[1]));
		StringRedisTemplate redis = new StringRedisTemplate(control);
		redis.afterPropertiesSet();
		System.out.println("READY " + service.getInstanceId());
		while (true) {
			String command = redis.opsForList().leftPop(prefix + "control:" + name, 1, TimeUnit.SECONDS);
			if (command == null) {
				continue;
			}
			if (command.equals("exit")) {
				System.exit(0);
			}
			List<String> parts = List.of(command.split(":"));
			String label = parts.get(1);
			long work = Long.parseLong(parts.get(2));
			Thread call = new Thread(() -> {
				try {
					System.out.println("QUEUEING " + label);
					groups.call(group, Duration.ofSeconds(60), () -> {
						if (redis.opsForValue().increment(prefix + "inside") != 1) {
							System.out.println("OVERLAP " + label);
						}
						redis.opsForList().rightPush(prefix + "order", label);
						Thread.sleep(work);
						redis.opsForValue().decrement(prefix + "inside");
						return null;
					});
					System.out.println("RAN " + label);
				}
				catch (Exception ex) {
					System.out.println("FAILED " + label + " " + ex);
				}
			});
			call.start();
		}
	}

}
