package dev.lockstep.ratelimit;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;

import dev.lockstep.annotation.RateLimited;
import dev.lockstep.aop.AnnotatedMethods;
import dev.lockstep.internal.DurationRules;
import dev.lockstep.internal.MethodAttributes;
import dev.lockstep.internal.NamingRules;
import dev.lockstep.internal.spel.KeyExpression;

/**
 * Finds {@link RateLimited} (repeated or not) on methods and resolves each once: names,
 * placeholders, durations, limits and key expressions. Anything wrong fails at startup, when the
 * proxy is created, with a message naming the method and the attribute.
 */
final class RateLimitedMethods implements AnnotatedMethods.Resolver<RateLimitedMethod> {

	@Override
	public @Nullable RateLimitedMethod resolve(Method method, Class<?> userClass, MethodAttributes attributes) {
		Set<RateLimited> annotations = AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class,
				RateLimited.List.class);
		if (annotations.isEmpty()) {
			return null;
		}
		List<RateLimitedMethod.Limit> limits = new ArrayList<>();
		Set<String> names = new HashSet<>();
		for (RateLimited annotation : annotations) {
			String name = StringUtils.hasText(annotation.name())
					? attributes.name("@RateLimited on " + MethodAttributes.describe(method), annotation.name())
					: userClass.getSimpleName() + "." + method.getName();
			String source = "@RateLimited" + (StringUtils.hasText(annotation.name()) ? "(name = \"" + name + "\")" : "")
					+ " on " + MethodAttributes.describe(method);
			MethodAttributes.requireInterceptable(method, source);
			if (!names.add(name)) {
				throw new IllegalStateException(source + " has the name of another @RateLimited on the method; give each "
						+ "a name of its own, or they would count in one bucket");
			}
			try {
				NamingRules.insideHashTag("name", name);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalStateException(source + ": " + ex.getMessage(), ex);
			}
			if (annotation.limit() < 1) {
				throw new IllegalStateException(source + ": limit must be at least 1, was " + annotation.limit());
			}
			Duration per = attributes.duration(source, "per", annotation.per(), DurationRules::positive);
			Duration wait = attributes.duration(source, "waitTime", annotation.waitTime(), DurationRules::notNegative);
			limits.add(new RateLimitedMethod.Limit(source, name, KeyExpression.parse(annotation.key(), method, source),
					annotation.limit(), per, wait));
		}
		return new RateLimitedMethod(List.copyOf(limits));
	}

}
