package dev.lockstep.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * G's third design, field report 1's own, as the report tells it: messages in one Redis list
 * (LPUSH on arrival); 16 worker threads that take a global queue lock (SET NX PX, 800 ms sleep
 * when it is taken), scan the list from the oldest message (LINDEX) for one whose group lock is
 * free (SET NX PX),
 * copy it to a key of their own, remove it (LREM), release the queue lock, process it, then
 * delete their key and the group lock; 800 ms sleep when no message could be taken. Stopped at
 * {@code limit}; the runs so far are reported and the makespan projected from them.
 */
final class FieldReportQueue {

	private static final Duration FIELD_REPORT_SLEEP = Duration.ofMillis(800);

	private FieldReportQueue() {
	}

	static QueueMeasurement run(String name, QueueWorkload workload, BenchmarkRedis redis, Duration limit) throws Exception {
		LettuceConnectionFactory connections = redis.connect();
		try {
			StringRedisTemplate template = new StringRedisTemplate(connections);
			template.afterPropertiesSet();
			String list = LockstepServices.KEY_PREFIX + name + ":queue";
			String queueLock = LockstepServices.KEY_PREFIX + name + ":queue-lock";
			CostMeter meter = CostMeter.start(redis);
			long start = GroupTaskRun.nowMicros();
			List<String> messages = new ArrayList<>();
			for (QueueTask task : workload.arrivals()) {
				messages.add(task.group() + ":" + task.sequence() + ":" + task.workMicros());
			}
			template.opsForList().leftPushAll(list, messages);
			Queue<QueueTaskRun> runs = new ConcurrentLinkedQueue<>();
			long stopAt = System.nanoTime() + limit.toNanos();
			CountDownLatch done = new CountDownLatch(SerialQueueScenario.THREADS);
			for (int t = 0; t < SerialQueueScenario.THREADS; t++) {
				String worker = name + "-worker-" + t;
				Thread thread = new Thread(() -> {
					try {
						while (runs.size() < workload.tasks() && System.nanoTime() < stopAt) {
							if (!Boolean.TRUE.equals(template.opsForValue().setIfAbsent(queueLock, worker, Duration.ofSeconds(30)))) {
								sleepUntil(FIELD_REPORT_SLEEP, stopAt);
								continue;
							}
							String taken = null;
							Long length = template.opsForList().size(list);
							for (long i = -1; length != null && i >= -length && taken == null; i--) {
								String message = template.opsForList().index(list, i);
								if (message == null) {
									break;
								}
								String group = message.substring(0, message.indexOf(':'));
								if (Boolean.TRUE.equals(template.opsForValue()
									.setIfAbsent(LockstepServices.KEY_PREFIX + name + ":group-lock:" + group, worker, Duration.ofMinutes(1)))) {
									template.opsForValue().set(LockstepServices.KEY_PREFIX + worker, message);
									template.opsForList().remove(list, 1, message);
									taken = message;
								}
							}
							template.delete(queueLock);
							if (taken == null) {
								sleepUntil(FIELD_REPORT_SLEEP, stopAt);
								continue;
							}
							String[] parts = taken.split(":");
							long begin = GroupTaskRun.nowMicros();
							LockSupport.parkNanos(Long.parseLong(parts[2]) * 1000);
							runs.add(new QueueTaskRun(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), start, begin,
									GroupTaskRun.nowMicros()));
							template.delete(LockstepServices.KEY_PREFIX + worker);
							template.delete(LockstepServices.KEY_PREFIX + name + ":group-lock:" + parts[0]);
						}
					}
					finally {
						done.countDown();
					}
				}, "bench-g-field-report-" + t);
				thread.setDaemon(true);
				thread.start();
			}
			if (!done.await(limit.toSeconds() + 60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Field report 1's workers did not stop");
			}
			CostMeter.Cost cost = meter.stop();
			List<QueueTaskRun> finished = new ArrayList<>(runs);
			template.delete(List.of(list, queueLock));
			return new QueueMeasurement(start, finished, cost.commands().total(),
					cost.commands().per(Math.max(1, finished.size())), cost.redisCpuMicros());
		}
		finally {
			connections.destroy();
		}
	}

	private static void sleepUntil(Duration sleep, long stopAt) {
		long left = stopAt - System.nanoTime();
		if (left > 0) {
			LockSupport.parkNanos(Math.min(sleep.toNanos(), left));
		}
	}

}
