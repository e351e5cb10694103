package dev.lockstep.aop;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.JobGuard;
import dev.lockstep.annotation.RateLimited;
import dev.lockstep.annotation.SerialGroup;
import dev.lockstep.annotation.SerialQueueListener;

/**
 * Lockstep's annotations, for a native image: their attributes are read reflectively (Spring's
 * merged annotations call the attribute methods), and an annotation found through an application's
 * own composed annotation is synthesized as a JDK proxy of the annotation type.
 * Registered in {@code META-INF/spring/aot.factories}.
 */
class AnnotationHints implements RuntimeHintsRegistrar {

	static final List<Class<?>> ANNOTATIONS = List.of(DistributedLock.class, SerialGroup.class, JobGuard.class,
			SerialQueueListener.class, RateLimited.class, RateLimited.List.class);

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (Class<?> annotation : ANNOTATIONS) {
			hints.reflection().registerType(annotation, MemberCategory.INVOKE_PUBLIC_METHODS);
			hints.proxies().registerJdkProxy(annotation);
		}
	}

}
