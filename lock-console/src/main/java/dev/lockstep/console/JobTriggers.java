package dev.lockstep.console;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.lockstep.GuardedJob;
import dev.lockstep.annotation.JobGuard;

/**
 * Finds the bean method of a guarded job this instance guards, to call it through its proxy: the
 * call goes through the job guard as any call does (a firing without a cron slot), so it runs once
 * in the cluster (skipped if a run holds the guard) and is recorded in the job's history.
 */
final class JobTriggers {

	private final ApplicationContext context;

	/** What {@link #find} found for each job, looked up once (it goes through every bean definition). */
	private final Map<GuardedJob, Optional<Runnable>> found = new ConcurrentHashMap<>();

	JobTriggers(ApplicationContext context) {
		this.context = context;
	}

	/** The job's method bound to its bean's proxy, if this instance has it and it takes no arguments. */
	Optional<Runnable> find(GuardedJob job) {
		return this.found.computeIfAbsent(job, this::lookUp);
	}

	private Optional<Runnable> lookUp(GuardedJob job) {
		for (String name : this.context.getBeanDefinitionNames()) {
			Class<?> type = this.context.getType(name, false);
			if (type == null) {
				continue;
			}
			Class<?> userClass = ClassUtils.getUserClass(type);
			for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass)) {
				if (method.getParameterCount() == 0 && AnnotatedElementUtils.hasAnnotation(method, JobGuard.class)
						&& job.method().equals(ClassUtils.getShortName(method.getDeclaringClass()) + "." + method.getName() + "()")) {
					Object bean = this.context.getBean(name);
					Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
					ReflectionUtils.makeAccessible(invocable);
					return Optional.of(() -> ReflectionUtils.invokeMethod(invocable, bean));
				}
			}
		}
		return Optional.empty();
	}

}
