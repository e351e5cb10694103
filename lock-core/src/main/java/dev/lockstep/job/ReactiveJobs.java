package dev.lockstep.job;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A guarded method's publisher run to its end on the firing's thread; loaded only for methods
 * returning {@code Mono} or {@code Flux}, so only with Reactor.
 */
final class ReactiveJobs {

	private ReactiveJobs() {
	}

	/** Subscribes to what the method returned and waits for its terminal signal; an error is thrown. */
	static @Nullable Object completed(@Nullable Object publisher) {
		if (publisher != null) {
			Flux.from((Publisher<?>) publisher).blockLast();
		}
		return null;
	}

	/**
	 * The same for a suspend method's call, subscribed on another thread: the firing's thread runs
	 * Spring's unconfined coroutine, which would queue the call's own coroutine behind itself, and so
	 * never start it, while it waits.
	 */
	static @Nullable Object suspendedCompleted(Object publisher) {
		Flux.from((Publisher<?>) publisher).subscribeOn(Schedulers.boundedElastic()).blockLast();
		return null;
	}

	/** Whether a method of this return type returns a {@code Mono}, else a {@code Flux}. */
	static boolean emitsOne(Class<?> returnType) {
		return Mono.class.isAssignableFrom(returnType);
	}

	/**
	 * What the scheduler (or a suspend method's proxy) is handed: a {@code Mono} when {@code one},
	 * else a {@code Flux}, that, on each subscription, runs {@code firing} and completes empty, or
	 * fails with what it threw.
	 */
	static Object guarded(boolean one, Subscription firing) {
		Mono<Object> guarded = Mono.defer(() -> {
			try {
				firing.run();
				return Mono.empty();
			}
			catch (Throwable ex) {
				return Mono.error(ex);
			}
		});
		return one ? guarded : guarded.flux();
	}

	/** One firing through the guard, run on subscription. */
	@FunctionalInterface
	interface Subscription {

		void run() throws Throwable;

	}

}
