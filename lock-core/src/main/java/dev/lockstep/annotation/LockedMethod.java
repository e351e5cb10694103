package dev.lockstep.annotation;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import dev.lockstep.SerialGroups;
import dev.lockstep.spel.KeyExpression;

/**
 * What an annotated method asks for, resolved and checked once per method.
 * @param source "@DistributedLock on OrderService.place(String)", for messages
 * @param namespace the lock name the key is appended to (with the group prefix for groups)
 * @param key the parsed key expression
 * @param waitTime how long a call waits for the lock
 * @param leaseTime the fixed lease, or null for a watchdog lease
 * @param group whether this is a serial group rather than a plain lock
 * @param returnType the method's declared return type
 */
record LockedMethod(String source, String namespace, KeyExpression key, Duration waitTime,
		@Nullable Duration leaseTime, boolean group, Class<?> returnType) {

	String lockKey(@Nullable Object[] arguments) {
		return this.namespace + ":" + this.key.evaluate(arguments);
	}

	/** The lock's or group's name as the annotation gives it (no group prefix): a low-cardinality tag. */
	String name() {
		return (this.group && this.namespace.startsWith(SerialGroups.LOCK_KEY_PREFIX))
				? this.namespace.substring(SerialGroups.LOCK_KEY_PREFIX.length()) : this.namespace;
	}

	boolean mayCompleteLater() {
		return CompletionStage.class.isAssignableFrom(this.returnType);
	}

}
