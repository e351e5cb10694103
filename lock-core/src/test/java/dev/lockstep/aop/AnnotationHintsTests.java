package dev.lockstep.aop;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import dev.lockstep.AotFactories;

import static org.assertj.core.api.Assertions.assertThat;

/** Every annotation in {@code dev.lockstep.annotation} can have its attributes read, and be synthesized, in a native image. */
class AnnotationHintsTests {

	@Test
	void everyAnnotationHasItsAttributesAndProxyHinted() throws Exception {
		RuntimeHints hints = AotFactories.hints();
		List<Class<?>> annotations = annotations();
		assertThat(annotations).hasSizeGreaterThanOrEqualTo(6);
		for (Class<?> annotation : annotations) {
			assertThat(RuntimeHintsPredicates.reflection().onType(annotation)).as("type %s", annotation).accepts(hints);
			for (Method attribute : annotation.getDeclaredMethods()) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(attribute))
					.as("attribute %s", attribute).accepts(hints);
			}
			assertThat(RuntimeHintsPredicates.proxies().forInterfaces(annotation)).as("proxy of %s", annotation).accepts(hints);
		}
	}

	/** The annotation types of the package, found on the class path so that a new one without a hint fails. */
	private static List<Class<?>> annotations() throws IOException, ClassNotFoundException {
		List<Class<?>> annotations = new ArrayList<>();
		for (Resource resource : new PathMatchingResourcePatternResolver().getResources("classpath*:dev/lockstep/annotation/*.class")) {
			String file = resource.getFilename();
			Class<?> type = Class.forName("dev.lockstep.annotation." + file.substring(0, file.length() - ".class".length()));
			if (type.isAnnotation()) {
				annotations.add(type);
			}
		}
		return annotations;
	}

}
