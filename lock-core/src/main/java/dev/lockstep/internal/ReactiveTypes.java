package dev.lockstep.internal;

import java.lang.reflect.Method;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * Which methods return a Reactor publisher, or are Kotlin {@code suspend} functions that Spring's
 * proxies call as one, told by class name so that nothing of Reactor or Kotlin is loaded for the
 * others (both are optional). Internal to Lockstep.
 */
public final class ReactiveTypes {

	private static final String MONO = "reactor.core.publisher.Mono";

	private static final String FLUX = "reactor.core.publisher.Flux";

	private static final String FLOW = "kotlinx.coroutines.flow.Flow";

	/** What Spring's proxies need to hand a suspend function's interceptors a publisher. */
	private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";

	private ReactiveTypes() {
	}

	/** Whether {@code type} is {@code Mono} or {@code Flux} (or a subclass). */
	public static boolean isReactorPublisher(Class<?> type) {
		for (Class<?> current = type; current != null; current = current.getSuperclass()) {
			String name = current.getName();
			if (name.equals(MONO) || name.equals(FLUX)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether {@code method} is a Kotlin {@code suspend} function: Spring's proxies then pass its
	 * interceptors a {@code Mono} (a {@code Flux} for one returning a {@code Flow}) from
	 * {@code proceed()} and turn what they return back into the suspended call. Fails, naming
	 * {@code source}, when kotlinx-coroutines-reactor is missing, since the proxies then call it as a
	 * plain method that returns at its first suspension.
	 */
	public static boolean isSuspending(Method method, String source) {
		if (!KotlinDetector.isSuspendingFunction(method)) {
			return false;
		}
		if (!ClassUtils.isPresent(COROUTINES_REACTOR, method.getDeclaringClass().getClassLoader())) {
			throw new IllegalStateException(source + " is a Kotlin suspend function, which is locked across its "
					+ "suspensions only with kotlinx-coroutines-reactor on the class path (Spring's proxies need it "
					+ "to call the function as a publisher); add org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
		}
		return true;
	}

	/**
	 * Whether a suspend function returns a {@code Flow}, which Spring's proxies pass on as a
	 * {@code Flux}; read from its continuation's type, so without Kotlin reflection.
	 */
	public static boolean suspendsForFlow(Method method) {
		int continuation = method.getParameterCount() - 1;
		Class<?> result = ResolvableType.forMethodParameter(method, continuation).getGeneric(0).toClass();
		for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(result)) {
			if (type.getName().equals(FLOW)) {
				return true;
			}
		}
		return result.getName().equals(FLOW);
	}

}
