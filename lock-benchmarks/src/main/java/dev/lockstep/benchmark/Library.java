package dev.lockstep.benchmark;

import java.util.Arrays;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/** The lock implementations under comparison, in the order of the report's columns. */
enum Library {

	/** The library under test; every ratio in the report is Lockstep's figure over another's. */
	LOCKSTEP("lockstep", "Lockstep", LockstepClient::new),

	/** SET NX PX and a compare-and-delete script; busy-spins when the lock is taken. */
	RAW("raw", "raw SET NX", RawLettuceClient::new),

	REDISSON("redisson", "Redisson RLock", RedissonLockClient::new),

	/** Redisson's FIFO lock; only in scenario E, where it runs groups in child JVMs. */
	REDISSON_FAIR("redisson-fair", "Redisson RFairLock", null),

	REGISTRY_PUB_SUB("registry-pubsub", "RedisLockRegistry pub/sub",
			(redis) -> new RedisLockRegistryClient(redis, RedisLockType.PUB_SUB_LOCK)),

	REGISTRY_SPIN("registry-spin", "RedisLockRegistry spin",
			(redis) -> new RedisLockRegistryClient(redis, RedisLockType.SPIN_LOCK)),

	/** ShedLock's Redis provider; only in the job-guard scenarios F and F-CRON. */
	SHEDLOCK("shedlock", "ShedLock", null),

	/** Lockstep's blocking serial groups, called by a pool of threads; only in scenario G, beside the queue. */
	LOCKSTEP_SERIAL_GROUP("lockstep-serial-group", "Lockstep @SerialGroup", null),

	/** Field report 1's design: one list, a global queue lock, scans and 800 ms sleeps; only in scenario G. */
	FIELD_REPORT_QUEUE("field-report-1", "field report 1's queue", null),

	/** Redisson's rate limiter; only in scenario I-RATE. */
	REDISSON_RATE_LIMITER("redisson-rate", "Redisson RRateLimiter", null),

	/** Bucket4j's Lettuce proxy manager (compare-and-swap); only in scenario I-RATE. */
	BUCKET4J("bucket4j", "Bucket4j Lettuce", null),

	/** Redisson's permits with a lease each (no watchdog); only in scenario I-PERMIT. */
	REDISSON_PERMITS("redisson-permits", "Redisson RPermitExpirableSemaphore", null),

	/** BullMQ, the Node queue, through {@link BullMqDriver}; only in scenario Q. */
	BULLMQ("bullmq", "BullMQ", null);

	private final String id;

	private final String title;

	private final @Nullable Function<BenchmarkRedis, LockClient> connector;

	Library(String id, String title, @Nullable Function<BenchmarkRedis, LockClient> connector) {
		this.id = id;
		this.title = title;
		this.connector = connector;
	}

	/** The name used on the command line ({@code --libraries}). */
	String id() {
		return this.id;
	}

	/** The name used in the report. */
	String title() {
		return this.title;
	}

	/** Whether the library has a {@link LockClient}; the others run only in scenarios with adapters of their own. */
	boolean hasLockClient() {
		return this.connector != null;
	}

	/** A new client with connections of its own. */
	LockClient connect(BenchmarkRedis redis) {
		if (this.connector == null) {
			throw new IllegalStateException(this.title + " has no LockClient");
		}
		return this.connector.apply(redis);
	}

	static Library byId(String id) {
		return Arrays.stream(values())
			.filter((library) -> library.id.equals(id))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Unknown library '" + id + "'; known: "
					+ String.join(", ", Arrays.stream(values()).map(Library::id).toList())));
	}

}
