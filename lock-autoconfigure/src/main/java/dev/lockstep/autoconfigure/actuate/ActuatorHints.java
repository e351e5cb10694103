package dev.lockstep.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

import dev.lockstep.LockSnapshot;
import dev.lockstep.queue.QueueGroup;
import dev.lockstep.queue.QueueSettings;
import dev.lockstep.ratelimit.RedisRateLimiter;

/**
 * What the {@code lockstep} endpoint and health contributor answer, for a native image: Jackson
 * writes these records reflectively. Boot hints an operation's declared return type, but
 * {@link LockstepEndpoint#part} returns {@code Object} and the health details are a map, so the
 * types are named here; their properties' types (job runs, skips, queue counts, snapshots, tasks)
 * follow from them. Imported by {@link LockstepEndpointAutoConfiguration} and
 * {@link LockstepHealthAutoConfiguration}.
 */
class ActuatorHints implements RuntimeHintsRegistrar {

	/** Answered as {@code Object}: the lock, permit and rate-limit views and the queues' implementations of the registry's interfaces. */
	static final List<Class<?>> UNDECLARED_ANSWERS = List.of(LockSnapshot.KeyState.class, LockSnapshot.PermitState.class,
			RedisRateLimiter.RecentKey.class, RedisRateLimiter.KeyState.class, QueueSettings.class, QueueGroup.class);

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), answers().toArray(Class<?>[]::new));
	}

	/** The endpoint's and the health details' records, and the views answered as {@code Object}. */
	static List<Class<?>> answers() {
		List<Class<?>> answers = new ArrayList<>();
		for (Class<?> owner : List.of(LockstepEndpoint.class, RecentLockLosses.class)) {
			for (Class<?> nested : owner.getDeclaredClasses()) {
				if (nested.isRecord()) {
					answers.add(nested);
				}
			}
		}
		answers.addAll(UNDECLARED_ANSWERS);
		return answers;
	}

}
