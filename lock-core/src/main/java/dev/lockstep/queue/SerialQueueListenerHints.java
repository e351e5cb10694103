package dev.lockstep.queue;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import dev.lockstep.SerialTask;
import dev.lockstep.annotation.SerialQueueListener;

/**
 * The {@code @SerialQueueListener} methods of each bean, for a native image, found at build time:
 * {@link ListenerMethod} calls the method reflectively and reads the payload with Jackson as the
 * method's payload parameter type, so the method needs an invocation hint and the payload type
 * (with the types its properties lead to) binding hints. A payload submitted as another type than
 * the listener reads is the application's to register ({@code @RegisterReflectionForBinding}).
 * Registered in {@code META-INF/spring/aot.factories}.
 */
class SerialQueueListenerHints implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
		Class<?> type = ClassUtils.getUserClass(bean.getBeanClass());
		Set<Method> listeners = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<SerialQueueListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, SerialQueueListener.class))
			.keySet();
		if (listeners.isEmpty()) {
			return null;
		}
		return (generation, code) -> register(listeners, generation.getRuntimeHints());
	}

	static void register(Set<Method> listeners, RuntimeHints hints) {
		BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();
		for (Method method : listeners) {
			hints.reflection().registerMethod(method, ExecutableMode.INVOKE);
			for (Type parameter : method.getGenericParameterTypes()) {
				if (parameter != SerialTask.class) {
					binding.registerReflectionHints(hints.reflection(), parameter);
				}
			}
		}
	}

}
