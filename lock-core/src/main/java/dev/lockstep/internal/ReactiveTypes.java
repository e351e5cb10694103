package dev.lockstep.internal;

/**
 * Which methods return a Reactor publisher, told by class name so that nothing of Reactor is
 * loaded for the others (Reactor is optional). Internal to Lockstep.
 */
public final class ReactiveTypes {

	private ReactiveTypes() {
	}

	/** Whether {@code type} is {@code Mono} or {@code Flux} (or a subclass). */
	public static boolean isReactorPublisher(Class<?> type) {
		for (Class<?> current = type; current != null; current = current.getSuperclass()) {
			String name = current.getName();
			if (name.equals("reactor.core.publisher.Mono") || name.equals("reactor.core.publisher.Flux")) {
				return true;
			}
		}
		return false;
	}

}
