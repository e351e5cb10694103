package dev.lockstep.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import dev.lockstep.LockContext;
import dev.lockstep.LockHandle;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Locked sections on virtual threads (Java 21 and later; {@code spring.threads.virtual.enabled=true}
 * runs an application's request and task threads as virtual threads): mutual exclusion and
 * per-thread reentrancy hold as on platform threads. CI runs these on its Java 25 pass.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VirtualThreadLockTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class))
		.withBean(Ledger.class)
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(), "spring.threads.virtual.enabled=true",
				"lockstep.key-prefix=v" + UUID.randomUUID().toString().substring(0, 8) + ":");

	@Test
	void lockedSectionsOnVirtualThreadsNeverOverlapAndReenterOnTheirOwnThread() {
		this.runner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			SimpleAsyncTaskExecutor virtual = new SimpleAsyncTaskExecutor("vt-");
			virtual.setVirtualThreads(true);
			List<CompletableFuture<String>> calls = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				calls.add(CompletableFuture.supplyAsync(() -> ledger.post("acct-" + (System.nanoTime() % 2)), virtual));
			}
			for (CompletableFuture<String> call : calls) {
				assertThat(call.get(60, TimeUnit.SECONDS)).isEqualTo("virtual thread, re-entered");
			}
			assertThat(ledger.sections()).isEqualTo(200);
			assertThat(ledger.overlaps()).as("overlapping sections on one account").isZero();
		});
	}

	@Test
	void theOverlapDetectorSeesOverlapWithoutTheLock() {
		// the control: the same sections on virtual threads, unlocked
		this.runner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			SimpleAsyncTaskExecutor virtual = new SimpleAsyncTaskExecutor("vt-");
			virtual.setVirtualThreads(true);
			List<CompletableFuture<Void>> calls = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				calls.add(CompletableFuture.runAsync(() -> ledger.section("acct-0"), virtual));
			}
			for (CompletableFuture<Void> call : calls) {
				call.get(60, TimeUnit.SECONDS);
			}
			assertThat(ledger.overlaps()).isPositive();
		});
	}

	static class Ledger {

		final java.util.Map<String, AtomicInteger> inside = new java.util.concurrent.ConcurrentHashMap<>();

		final AtomicInteger overlaps = new AtomicInteger();

		final AtomicInteger sections = new AtomicInteger();

		private final Ledger self;

		Ledger(@Lazy Ledger self) {
			this.self = self;
		}

		/** Locks the account, then re-enters the same lock through the proxy: one thread, one holder. */
		@DistributedLock(name = "ledger", key = "#account", waitTime = "60s")
		public String post(String account) {
			LockHandle outer = LockContext.current().orElseThrow();
			String thread = isVirtual(Thread.currentThread()) ? "virtual thread" : "platform thread";
			long inner = this.self.recheck(account);
			section(account);
			return thread + ", " + ((inner == outer.fencingToken()) ? "re-entered" : "inner token " + inner + " outer " + outer.fencingToken());
		}

		public int sections() {
			return this.sections.get();
		}

		public int overlaps() {
			return this.overlaps.get();
		}

		@DistributedLock(name = "ledger", key = "#account", waitTime = "0s")
		public long recheck(String account) {
			return LockContext.current().map(LockHandle::fencingToken).orElse(-1L);
		}

		public void section(String account) {
			AtomicInteger here = this.inside.computeIfAbsent(account, (key) -> new AtomicInteger());
			if (here.incrementAndGet() > 1) {
				this.overlaps.incrementAndGet();
			}
			try {
				Thread.sleep(2);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			here.decrementAndGet();
			this.sections.incrementAndGet();
		}

		private static boolean isVirtual(Thread thread) {
			try {
				return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
			}
			catch (ReflectiveOperationException ex) {
				return false;
			}
		}

	}

}
