package dev.lockstep.autoconfigure.actuate;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.BeanUtils;
import org.springframework.context.annotation.ImportRuntimeHints;

import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;
import dev.lockstep.LockSnapshot;
import dev.lockstep.QueueStats;
import dev.lockstep.SerialTask;
import dev.lockstep.queue.QueueGroup;
import dev.lockstep.queue.QueueSettings;
import dev.lockstep.ratelimit.RedisRateLimiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every record the endpoint and the health contributor answer with, and every Lockstep record its
 * properties lead to, can be written by Jackson in a native image: the hints come from the
 * auto-configurations' {@code @ImportRuntimeHints}, as Spring's AOT engine finds them.
 */
class ActuatorHintsTests {

	@Test
	void everyAnswerAndTheRecordsItHoldsAreHintedForJackson() {
		for (Class<?> configuration : List.of(LockstepEndpointAutoConfiguration.class, LockstepHealthAutoConfiguration.class)) {
			RuntimeHints hints = imported(configuration);
			Set<Class<?>> records = reachable(ActuatorHints.answers());
			// the walk reaches the feature records, and the views the endpoint's parts answer as Object
			assertThat(records).contains(LockstepEndpoint.JobDetail.class, JobRun.class, JobSkip.class, QueueStats.class,
					LockSnapshot.Held.class, SerialTask.class, RecentLockLosses.Loss.class, LockSnapshot.KeyState.class,
					LockSnapshot.PermitState.class, RedisRateLimiter.RecentKey.class, RedisRateLimiter.KeyState.class,
					QueueSettings.class, QueueGroup.class);
			for (Class<?> record : records) {
				assertThat(RuntimeHintsPredicates.reflection().onType(record)).as("%s from %s", record, configuration)
					.accepts(hints);
				for (RecordComponent component : record.getRecordComponents()) {
					assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
						.as("%s.%s() from %s", record.getName(), component.getName(), configuration)
						.accepts(hints);
				}
			}
		}
	}

	private static RuntimeHints imported(Class<?> configuration) {
		ImportRuntimeHints imports = configuration.getAnnotation(ImportRuntimeHints.class);
		assertThat(imports).as("@ImportRuntimeHints on %s", configuration).isNotNull();
		RuntimeHints hints = new RuntimeHints();
		for (Class<? extends RuntimeHintsRegistrar> registrar : imports.value()) {
			BeanUtils.instantiateClass(registrar).registerHints(hints, ActuatorHintsTests.class.getClassLoader());
		}
		return hints;
	}

	/** The records given and, through their components (and the type arguments of lists), every Lockstep record they hold. */
	private static Set<Class<?>> reachable(List<Class<?>> answers) {
		Set<Class<?>> seen = new LinkedHashSet<>();
		answers.forEach((answer) -> walk(answer, seen));
		return seen;
	}

	private static void walk(Type type, Set<Class<?>> seen) {
		if (type instanceof ParameterizedType parameterized) {
			for (Type argument : parameterized.getActualTypeArguments()) {
				walk(argument, seen);
			}
			walk(parameterized.getRawType(), seen);
		}
		else if (type instanceof WildcardType wildcard) {
			for (Type bound : wildcard.getUpperBounds()) {
				walk(bound, seen);
			}
		}
		else if (type instanceof Class<?> raw && raw.isRecord() && raw.getName().startsWith("dev.lockstep.") && seen.add(raw)) {
			for (RecordComponent component : raw.getRecordComponents()) {
				walk(component.getGenericType(), seen);
			}
		}
	}

}
