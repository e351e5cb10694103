package dev.lockstep.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.jspecify.annotations.Nullable;

/**
 * A value each thread may be inside of, nested: the guarded job run a thread is in
 * ({@code JobFiring.current()} reads it, the job guard enters and exits it). One per type, found by
 * its class, so that the API type reads what the feature writes without either importing the
 * other's package.
 * @param <T> the value's type
 */
public final class ThreadScoped<T> {

	private static final ConcurrentMap<Class<?>, ThreadScoped<?>> BY_TYPE = new ConcurrentHashMap<>();

	private final ThreadLocal<T> current = new ThreadLocal<>();

	private ThreadScoped() {
	}

	/** The one scope of values of {@code type}. */
	@SuppressWarnings("unchecked")
	public static <T> ThreadScoped<T> of(Class<T> type) {
		return (ThreadScoped<T>) BY_TYPE.computeIfAbsent(type, (key) -> new ThreadScoped<>());
	}

	/** The value the current thread is in, or null. */
	public @Nullable T current() {
		return this.current.get();
	}

	/**
	 * Puts the current thread inside {@code value}.
	 * @return the value it was in before, to {@link #exit} back to
	 */
	public @Nullable T enter(T value) {
		T outer = this.current.get();
		this.current.set(value);
		return outer;
	}

	/** Leaves the value entered last, back to {@code outer}, which {@link #enter} returned. */
	public void exit(@Nullable T outer) {
		if (outer == null) {
			this.current.remove();
		}
		else {
			this.current.set(outer);
		}
	}

}
