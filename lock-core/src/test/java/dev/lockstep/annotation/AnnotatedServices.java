package dev.lockstep.annotation;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.lockstep.LockContext;
import dev.lockstep.LockHandle;

/** Beans with annotated methods, as an application would write them. */
final class AnnotatedServices {

	private AnnotatedServices() {
	}

	/** Field report 3, scenario 1: retried messages must initialise each user once. */
	static class UserInitializer {

		private final JdbcTemplate jdbc;

		UserInitializer(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@DistributedLock(key = "#pin")
		@Transactional
		public boolean initialise(String pin) {
			Integer existing = this.jdbc.queryForObject("select count(*) from app_user where pin = ?", Integer.class, pin);
			if (existing != null && existing > 0) {
				return false;
			}
			this.jdbc.update("insert into app_user (pin) values (?)", pin);
			// Widen the window between the method's return and the commit: a lock released before the
			// commit lets the next caller read zero rows and insert a duplicate.
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void beforeCommit(boolean readOnly) {
					LockSupport.parkNanos(30_000_000);
				}
			});
			return true;
		}

	}

	record ImportRequest(String tenantId, String entityCode) {
	}

	/**
	 * A protected section that notices overlap: each run counts who else is inside when it enters,
	 * and records when it entered and left (monotonic clock).
	 */
	static final class Section {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger overlaps = new AtomicInteger();

		final List<long[]> runs = new CopyOnWriteArrayList<>();

		String run(long millis) {
			long entered = System.nanoTime();
			if (this.inside.incrementAndGet() > 1) {
				this.overlaps.incrementAndGet();
			}
			try {
				LockSupport.parkNanos(millis * 1_000_000L);
				return "worked";
			}
			finally {
				this.inside.decrementAndGet();
				this.runs.add(new long[] { entered, System.nanoTime() });
			}
		}

		int inside() {
			return this.inside.get();
		}

		int overlaps() {
			return this.overlaps.get();
		}

	}

	static class Locked {

		private final AtomicInteger runs = new AtomicInteger();

		private final List<Long> tokens = new CopyOnWriteArrayList<>();

		// read through methods: a class-based proxy has fields of its own
		public int runs() {
			return this.runs.get();
		}

		public List<Long> tokens() {
			return this.tokens;
		}

		@DistributedLock(key = "#tenantId + ':' + #entity", waitTime = "0")
		public void byName(String tenantId, String entity) {
			this.runs.incrementAndGet();
			this.tokens.add(LockContext.current().map(LockHandle::fencingToken).orElse(-1L));
		}

		@DistributedLock(key = "#p0.tenantId + '/' + #a0.entityCode()", name = "imports", waitTime = "${test.wait:0s}")
		public String byRecord(ImportRequest request) {
			this.runs.incrementAndGet();
			return LockContext.current().orElseThrow().key();
		}

		@DistributedLock(key = "#value", waitTime = "0")
		public void nullable(String value) {
			this.runs.incrementAndGet();
		}

		@DistributedLock(key = "#value.length() > 3 ? #value.substring(0, 3) : #value.missing", waitTime = "0")
		public void failing(String value) {
			this.runs.incrementAndGet();
		}

		/** A key from a method of the argument, which throws for a short value. */
		@DistributedLock(key = "#value.substring(0, 3)", waitTime = "0")
		public String prefixed(String value) {
			this.runs.incrementAndGet();
			return LockContext.current().orElseThrow().key();
		}

		@DistributedLock(key = "#id", waitTime = "0", leaseTime = "5s")
		public void withLease(long id, Runnable body) {
			this.runs.incrementAndGet();
			body.run();
		}

		@DistributedLock(key = "#id", waitTime = "100ms")
		public CompletableFuture<String> later(String id, CompletableFuture<String> work) {
			this.runs.incrementAndGet();
			return work;
		}

		/** The work's read-only view, as an API that hands out no completable future returns it. */
		@DistributedLock(key = "#id", waitTime = "100ms")
		public java.util.concurrent.CompletionStage<String> laterReadOnly(String id, CompletableFuture<String> work) {
			this.runs.incrementAndGet();
			return work.minimalCompletionStage();
		}

		/** Work on another thread, as {@code supplyAsync} runs it; the lock is the method's until the work ends. */
		@DistributedLock(key = "#id", waitTime = "20s")
		public CompletableFuture<String> working(String id, Section section, long millis, java.util.concurrent.Executor executor) {
			this.runs.incrementAndGet();
			return CompletableFuture.supplyAsync(() -> section.run(millis), executor);
		}

		/** The same work declared as a plain {@link java.util.concurrent.Future}: what it returns is still a stage. */
		@DistributedLock(key = "#id", waitTime = "20s")
		public java.util.concurrent.Future<String> workingAsFuture(String id, Section section, long millis,
				java.util.concurrent.Executor executor) {
			this.runs.incrementAndGet();
			return CompletableFuture.supplyAsync(() -> section.run(millis), executor);
		}

		/** The same under a serial group's turn. */
		@SerialGroup(key = "#id", waitTime = "20s")
		public CompletableFuture<String> workingInGroup(String id, Section section, long millis,
				java.util.concurrent.Executor executor) {
			this.runs.incrementAndGet();
			return CompletableFuture.supplyAsync(() -> section.run(millis), executor);
		}

		/** The control: the same work with no lock at all. */
		public CompletableFuture<String> workingUnlocked(String id, Section section, long millis,
				java.util.concurrent.Executor executor) {
			return CompletableFuture.supplyAsync(() -> section.run(millis), executor);
		}

		@SerialGroup(key = "#request.tenantId + ':' + #request.entityCode", waitTime = "30s")
		public void importGroup(ImportRequest request, List<String> order, String label) {
			order.add(label);
		}

	}

	static class TypeReferenceKey {

		@DistributedLock(key = "T(java.lang.Runtime).getRuntime().exec('id')")
		public void run(String id) {
		}

	}

	static class ConstructorKey {

		@DistributedLock(key = "new java.io.File(#id).delete()")
		public void run(String id) {
		}

	}

	static class BeanReferenceKey {

		@DistributedLock(key = "@lockService.toString()")
		public void run(String id) {
		}

	}

	static class UnknownParameterKey {

		@DistributedLock(key = "#tenant")
		public void run(String tenantId) {
		}

	}

	static class BadWaitTime {

		@DistributedLock(key = "#id", waitTime = "five seconds")
		public void run(String id) {
		}

	}

	static class NegativeWaitTime {

		@DistributedLock(key = "#id", waitTime = "-1s")
		public void run(String id) {
		}

	}

	static class ZeroLeaseTime {

		@SerialGroup(key = "#id", leaseTime = "0s")
		public void run(String id) {
		}

	}

	static class FinalMethod {

		@DistributedLock(key = "#id")
		public final void run(String id) {
		}

	}

	/** Up to three callers per room at once; each call stays inside until {@code leave} opens. */
	static class Rooms {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger mostInside = new AtomicInteger();

		@DistributedLock(key = "#room", permits = 3, waitTime = "0")
		public long enter(String room, java.util.concurrent.CountDownLatch leave) throws InterruptedException {
			this.mostInside.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
			try {
				leave.await();
				return LockContext.current().orElseThrow().fencingToken();
			}
			finally {
				this.inside.decrementAndGet();
			}
		}

		int inside() {
			return this.inside.get();
		}

		int mostInside() {
			return this.mostInside.get();
		}

	}

	static class NoPermits {

		@DistributedLock(key = "#id", permits = 0)
		public void run(String id) {
		}

	}

	static class ReactivePermits {

		@DistributedLock(key = "#id", permits = 2)
		public reactor.core.publisher.Mono<String> run(String id) {
			return reactor.core.publisher.Mono.just(id);
		}

	}

}
