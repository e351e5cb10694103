package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How idle workers wait, on their own (no Redis): the waits after a failed take, which share no
 * timer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleWorkersTests {

	@Test
	void everyWorkerWhoseTakeFailedTriesAgainAfterTheRetryInterval() throws Exception {
		int workers = 4;
		IdleWorkers idle = new IdleWorkers(workers, "here", QueueSettings.DEFAULTS.leaseTime());
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
		idle.reset(timer);
		AtomicInteger tried = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		try {
			for (int i = 0; i < workers; i++) {
				Thread thread = new Thread(() -> {
					try {
						start.await();
					}
					catch (InterruptedException ex) {
						return;
					}
					// as QueueWorkers does after a take that Redis did not answer
					idle.awaitRetry(Duration.ofSeconds(1));
					tried.incrementAndGet();
				});
				thread.setDaemon(true);
				thread.start();
				threads.add(thread);
			}
			start.countDown();
			for (Thread thread : threads) {
				// a shared one-per-moment timer would leave all but one waiting for IdleWorkers.IDLE_LOOK (30s)
				thread.join(5_000);
			}
			assertThat(tried.get()).as("workers that tried again within 5s of a failed take").isEqualTo(workers);
		}
		finally {
			idle.wakeAll();
			timer.shutdownNow();
		}
	}

}
