package dev.lockstep.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Reads the string attributes of Lockstep's annotations the same way for every annotation:
 * {@code ${...}} placeholders through the bean factory, durations through Spring's
 * {@link DurationFormatterUtils}, and errors that name the annotated method. Shared by
 * the annotations' resolvers in {@code aop}, {@code job} and {@code ratelimit}.
 */
public final class MethodAttributes {

	private volatile @Nullable ConfigurableBeanFactory beanFactory;

	/** Resolves placeholders through {@code beanFactory} from now on. */
	public void setBeanFactory(ConfigurableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * A {@code name} attribute set on the method, resolved; a name that resolves to blank (a
	 * placeholder with an empty value) is refused rather than let several methods share one.
	 * @param source the annotation and method, for the message
	 * @param text the attribute as written, not blank
	 * @return the name
	 */
	public String name(String source, String text) {
		String resolved = resolve(text);
		if (!StringUtils.hasText(resolved)) {
			throw new IllegalStateException(source + ": name '" + text + "' resolved to a blank name; set a value, or "
					+ "leave the attribute out for the default (SimpleClassName.methodName)");
		}
		return resolved;
	}

	/** {@code value} with its {@code ${...}} placeholders resolved. */
	public String resolve(String value) {
		ConfigurableBeanFactory factory = this.beanFactory;
		String resolved = (factory != null) ? factory.resolveEmbeddedValue(value) : value;
		return (resolved != null) ? resolved : value;
	}

	/**
	 * The duration in {@code text} ({@code 500ms}, {@code 5s}, {@code PT5S}, {@code ${...}}).
	 * @param source the annotation and method, for messages
	 * @param rule the {@link DurationRules} rule the duration must meet, given its name and value
	 * @throws IllegalStateException naming source and attribute when it is not a duration or breaks the rule
	 */
	public Duration duration(String source, String attribute, String text, BiFunction<String, Duration, Duration> rule) {
		String resolved = resolve(text);
		Duration duration;
		try {
			duration = DurationFormatterUtils.detectAndParse(resolved.trim());
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException(source + ": " + attribute + " '" + text + "'" + (resolved.equals(text) ? ""
					: " (resolved to '" + resolved + "')") + " is not a duration such as 500ms, 5s or PT5S", ex);
		}
		try {
			return rule.apply(source + ": " + attribute + " '" + text + "'", duration);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(ex.getMessage(), ex);
		}
	}

	/**
	 * Fails when a proxy could not intercept {@code method}, rather than leaving the annotation to
	 * do nothing.
	 */
	public static void requireInterceptable(Method method, String source) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers) || Modifier.isStatic(modifiers)) {
			throw new IllegalStateException(source + " cannot apply: the method is private, final or static, and Spring "
					+ "proxies only intercept overridable methods called through the bean");
		}
	}

	/** {@code SimpleClassName.method(ParameterTypes)}. */
	public static String describe(Method method) {
		return ClassUtils.getShortName(method.getDeclaringClass()) + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
	}

}
