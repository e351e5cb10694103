package dev.lockstep.internal;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InFlightWorkTests {

	@Test
	void awaitNoneReturnsOnceTheLastPieceOfWorkLeaves() throws Exception {
		InFlightWork work = new InFlightWork();
		assertThat(work.enter()).isTrue();
		assertThat(work.enter()).isTrue();
		CountDownLatch waiting = new CountDownLatch(1);
		Thread finisher = new Thread(() -> {
			try {
				waiting.await();
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				return;
			}
			work.leave();
			work.leave();
		});
		finisher.start();
		long started = System.nanoTime();
		waiting.countDown();
		assertThat(work.awaitNone(Duration.ofSeconds(20))).isZero();
		// it woke when the work ended, not at the deadline
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
		finisher.join(10_000);
	}

	@Test
	void awaitNoneGivesUpAtTheDeadlineSayingHowMuchIsLeft() {
		InFlightWork work = new InFlightWork();
		work.enter();
		long started = System.nanoTime();
		assertThat(work.awaitNone(Duration.ofMillis(200))).isEqualTo(1);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
	}

	@Test
	void onceRefusingNothingEntersAndWorkAlreadyInGoesOn() {
		InFlightWork work = new InFlightWork();
		assertThat(work.enter()).isTrue();
		work.refuseNew();
		assertThat(work.enter()).isFalse();
		assertThat(work.count()).isEqualTo(1);
		work.leave();
		assertThat(work.awaitNone(Duration.ZERO)).isZero();
	}

	@Test
	void anInterruptedWaitReturnsAtOnceWithTheFlagSet() {
		InFlightWork work = new InFlightWork();
		work.enter();
		Thread.currentThread().interrupt();
		try {
			assertThat(work.awaitNone(Duration.ofSeconds(20))).isEqualTo(1);
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
	}

}
