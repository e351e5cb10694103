package dev.lockstep;

import java.time.Duration;
import java.util.function.Function;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link LockService} for Reactor pipelines: a lock is taken on subscription without blocking
 * a thread while it waits, and released without waiting for Redis. Locks taken here are not
 * reentrant (a pipeline has no thread of its own) and are not seen by {@link LockContext}; a
 * pipeline run by {@link #locked} finds its handle in its Reactor context under
 * {@link #CONTEXT_KEY} (see {@link #current()}). Needs Reactor on the class path.
 */
public interface ReactiveLockService {

	/** The Reactor context key under which a locked pipeline finds its {@link LockHandle}. */
	String CONTEXT_KEY = "dev.lockstep.LockHandle";

	/**
	 * Acquires the lock for {@code key} on subscription, waiting up to {@code waitTime} without
	 * blocking; its lease is renewed by the watchdog until the handle is closed. Cancelling the
	 * subscription while waiting leaves the queue; a lock handed over meanwhile is released.
	 * @return the handle; fails with {@link LockNotAcquiredException} if the lock is still held
	 * elsewhere after {@code waitTime}, {@link LockUnavailableException} if Redis cannot be reached
	 */
	Mono<LockHandle> acquire(String key, Duration waitTime);

	/**
	 * Tries to acquire the lock for {@code key} within {@code waitTime}, with a fixed lease that
	 * is never renewed.
	 * @return the handle, or empty if the lock is still held elsewhere after {@code waitTime};
	 * fails with {@link LockUnavailableException} if Redis cannot be reached
	 */
	Mono<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime);

	/**
	 * Releases {@code handle} on subscription: sent without waiting for Redis to answer, as
	 * {@link LockHandle#close()}; never fails.
	 */
	default Mono<Void> release(LockHandle handle) {
		return Mono.fromRunnable(handle::close);
	}

	/**
	 * Runs the publisher {@code work} makes while holding the lock for {@code key} (watchdog
	 * lease): the lock is taken on subscription and released on the publisher's terminal signal,
	 * or on cancel, after the cancel has been passed up to the publisher. The handle is in the
	 * publisher's context under {@link #CONTEXT_KEY}.
	 */
	default <T> Flux<T> locked(String key, Duration waitTime, Function<LockHandle, ? extends Publisher<T>> work) {
		return Flux.usingWhen(acquire(key, waitTime),
				(handle) -> Flux.from(work.apply(handle)).contextWrite((context) -> context.put(CONTEXT_KEY, handle)),
				this::release, (handle, error) -> release(handle), this::release);
	}

	/**
	 * The innermost lock held by the pipeline this is subscribed in ({@link #locked}, or a
	 * {@code @DistributedLock} or {@code @SerialGroup} method returning {@code Mono} or
	 * {@code Flux}); empty outside one.
	 */
	static Mono<LockHandle> current() {
		return Mono.deferContextual((context) -> Mono.justOrEmpty(context.<LockHandle>getOrEmpty(CONTEXT_KEY)));
	}

}
