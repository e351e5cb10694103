package dev.lockstep.queue;

import java.lang.reflect.Method;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.ClassName;

import dev.lockstep.AotFactories;
import dev.lockstep.SerialTask;
import dev.lockstep.annotation.SerialQueueListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @SerialQueueListener} method found at build time: in a native image the queue calls it
 * reflectively and reads its payload with Jackson, so both need hints.
 */
class SerialQueueListenerHintsTests {

	@Test
	void aListenerMethodAndItsPayloadTypesAreHinted() throws Exception {
		RuntimeHints hints = processed(Listener.class);
		Method handle = Listener.class.getDeclaredMethod("handle", Order.class, SerialTask.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(handle)).accepts(hints);
		// the payload and what its properties lead to, as Jackson reads them
		assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "id")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Line.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Line.class, "quantity")).accepts(hints);
	}

	@Test
	void aBeanWithoutListenersContributesNothing() {
		BeanRegistrationAotProcessor processor = processor();
		assertThat(processor.processAheadOfTime(registered(NoListener.class))).isNull();
	}

	private static RuntimeHints processed(Class<?> beanClass) {
		BeanRegistrationAotContribution contribution = processor().processAheadOfTime(registered(beanClass));
		assertThat(contribution).as("contribution for %s", beanClass).isNotNull();
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("dev.lockstep.queue", "Generated")), new InMemoryGeneratedFiles());
		contribution.applyTo(generation, null);
		return generation.getRuntimeHints();
	}

	/** Lockstep's processor as Spring's AOT engine finds it, through aot.factories. */
	private static BeanRegistrationAotProcessor processor() {
		List<BeanRegistrationAotProcessor> processors = AotFactories.lockstep(BeanRegistrationAotProcessor.class);
		assertThat(processors).hasOnlyElementsOfType(SerialQueueListenerHints.class).hasSize(1);
		return processors.get(0);
	}

	private static RegisteredBean registered(Class<?> beanClass) {
		DefaultListableBeanFactory factory = new DefaultListableBeanFactory();
		factory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		return RegisteredBean.of(factory, "bean");
	}

	record Order(String id, List<Line> lines) {
	}

	record Line(String sku, int quantity) {
	}

	static class Listener {

		@SerialQueueListener(queue = "orders")
		void handle(Order order, SerialTask task) {
		}

	}

	static class NoListener {

		void handle(Order order) {
		}

	}

}
