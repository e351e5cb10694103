package dev.lockstep.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * timer; the wake-ups of a confirmed subscription.
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

	@Test
	void aConfirmedSubscriptionWakesEveryIdleWorkerTheFirstToTakeAsUsual() throws Exception {
		int workers = 3;
		IdleWorkers idle = new IdleWorkers(workers, "here", QueueSettings.DEFAULTS.leaseTime());
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
		idle.reset(timer);
		List<String> woke = new CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		try {
			// one worker goes idle only after the confirmation: it looks at once as well
			for (int i = 0; i < workers; i++) {
				if (i == workers - 1) {
					Thread.sleep(200);
					idle.subscribed();
				}
				Thread thread = new Thread(() -> woke.add(String.valueOf(
						idle.awaitWork(-1, () -> false, () -> "woken take"))));
				thread.setDaemon(true);
				thread.start();
				threads.add(thread);
			}
			for (Thread thread : threads) {
				// without the confirmation's wake-ups each would wait IdleWorkers.IDLE_LOOK (30s)
				thread.join(5_000);
			}
			assertThat(woke).as("how the idle workers woke within 5s of the confirmation: null, to take as usual")
				.containsExactlyInAnyOrder("null", "woken take", "woken take");
		}
		finally {
			idle.wakeAll();
			timer.shutdownNow();
		}
	}

	@Test
	void controlWithoutAConfirmationIdleWorkersWaitOn() throws Exception {
		IdleWorkers idle = new IdleWorkers(2, "here", QueueSettings.DEFAULTS.leaseTime());
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
		idle.reset(timer);
		List<String> woke = new CopyOnWriteArrayList<>();
		Thread thread = new Thread(() -> woke.add(String.valueOf(idle.awaitWork(-1, () -> false, () -> "woken take"))));
		thread.setDaemon(true);
		try {
			thread.start();
			thread.join(1_000);
			assertThat(woke).as("idle workers that woke within 1s without a wake-up").isEmpty();
		}
		finally {
			idle.wakeAll();
			timer.shutdownNow();
		}
	}

}
