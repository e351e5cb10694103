package dev.lockstep.aop;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import dev.lockstep.internal.ReactiveTypes;
import dev.lockstep.internal.spel.KeyExpression;

/**
 * What an annotated method asks for, resolved and checked once per method.
 * @param source "@DistributedLock on OrderService.place(String)", for messages
 * @param name the lock's or group's name as the annotation gives it: a low-cardinality tag
 * @param key the parsed key expression
 * @param waitTime how long a call waits for the lock
 * @param leaseTime the fixed lease, or null for a watchdog lease
 * @param group whether this is a serial group rather than a plain lock
 * @param returnType the method's declared return type
 * @param permits how many callers of one key may hold it at once; 1 for a lock or a group
 * @param suspending whether this is a Kotlin {@code suspend} function, which Spring's proxies let
 * an interceptor lock as a {@code Mono} (a {@code Flux} when it returns a {@code Flow})
 * @param flow whether this suspend function returns a {@code Flow}
 */
record LockedMethod(String source, String name, KeyExpression key, Duration waitTime,
		@Nullable Duration leaseTime, boolean group, Class<?> returnType, int permits, boolean suspending,
		boolean flow) {

	/**
	 * The lock or group this call is for, as the application knows it: {@code name:key}, the
	 * {@link dev.lockstep.LockService} key of a lock, the {@link dev.lockstep.SerialGroups} group of a group.
	 */
	String target(@Nullable Object[] arguments) {
		return this.name + ":" + this.key.evaluate(arguments);
	}

	/**
	 * Whether the method returns a {@code Mono} or {@code Flux}, or is a suspend function, locked
	 * while its publisher runs; by class name, so that nothing of Reactor is loaded for the other methods.
	 */
	boolean reactive() {
		return this.suspending || ReactiveTypes.isReactorPublisher(this.returnType);
	}

	/**
	 * Whether a {@link CompletionStage} this method returns keeps its lock until it completes:
	 * whatever the declared type ({@code CompletionStage}, {@code Future}, {@code Object}), a stage
	 * returned is work that goes on after the method returned.
	 */
	boolean mayCompleteLater() {
		return !this.suspending && !this.returnType.isPrimitive();
	}

}
