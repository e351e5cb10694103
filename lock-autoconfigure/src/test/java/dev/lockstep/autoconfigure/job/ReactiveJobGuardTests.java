package dev.lockstep.autoconfigure.job;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobRun;
import dev.lockstep.annotation.JobGuard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reactive {@code @Scheduled} method under {@code @JobGuard}, on two instances: each cron slot
 * runs once, and the guard is held until the method's publisher completes, not only while the
 * method builds it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveJobGuardTests {

	/** Each run of the publisher: instance and slot second, when it started and ended. */
	static final Queue<Object[]> RUNS = new ConcurrentLinkedQueue<>();

	static final AtomicInteger INSIDE = new AtomicInteger();

	static final AtomicInteger OVERLAPS = new AtomicInteger();

	private JobApps apps;

	@BeforeEach
	void prepare() {
		RUNS.clear();
		INSIDE.set(0);
		OVERLAPS.set(0);
		this.apps = new JobApps();
	}

	@AfterEach
	void close() {
		this.apps.close();
	}

	@Test
	void eachFiringOfAReactiveJobRunsOnceAndHoldsTheGuardUntilItsPublisherCompletes() {
		this.apps.start("a", Duration.ZERO, EverySecond.class);
		JobGuardRegistry registry = this.apps.start("b", Duration.ZERO, EverySecond.class).getBean(JobGuardRegistry.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> registry.history("EverySecond.tick").size() >= 4);
		this.apps.close();
		List<JobRun> runs = new ArrayList<>(this.apps.start("observer", Duration.ZERO, JobGuardTests.NoJobs.class)
			.getBean(JobGuardRegistry.class)
			.history("EverySecond.tick"));

		Map<Instant, List<String>> bySlot = new TreeMap<>();
		for (JobRun run : runs) {
			bySlot.computeIfAbsent(run.scheduledTime(), (slot) -> new ArrayList<>()).add(run.instance());
		}
		assertThat(bySlot.values()).as("runners per slot: %s", bySlot).allSatisfy((runners) -> assertThat(runners).hasSize(1));
		assertThat(runs).as("runs recorded").hasSizeGreaterThanOrEqualTo(4);
		// the guard's run lasts as long as the publisher (600ms), not as long as building it
		assertThat(runs).allSatisfy((run) -> assertThat(run.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(550)));
		assertThat(OVERLAPS).hasValue(0);
		// every publisher that ran is a recorded run: none ran unguarded
		assertThat(RUNS.size()).isBetween(runs.size() - 1, runs.size() + 1);
	}

	@Configuration(proxyBeanMethods = false)
	static class EverySecond {

		@Value("${lockstep.job-guard.instance-id}")
		String instance;

		@Scheduled(cron = "* * * * * *")
		@JobGuard(lockAtMostFor = "5s")
		public Mono<Void> tick() {
			return Mono.defer(() -> {
				if (INSIDE.incrementAndGet() != 1) {
					OVERLAPS.incrementAndGet();
				}
				Instant start = Instant.now();
				return Mono.delay(Duration.ofMillis(600)).doFinally((signal) -> {
					INSIDE.decrementAndGet();
					RUNS.add(new Object[] { this.instance, start, Instant.now() });
				});
			}).then();
		}

	}

}
