package dev.lockstep.job;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.Ordered;

import dev.lockstep.GuardedJob;

/**
 * Applies the job guard to {@code @JobGuard} methods (and to every {@code @Scheduled} method when
 * all are guarded). Register it as an infrastructure bean; the guard itself is looked up on first use.
 */
public final class JobGuardAdvisor extends AbstractPointcutAdvisor implements BeanFactoryAware {

	private final JobDefinitions jobs;

	private final JobGuardInterceptor interceptor;

	private final Pointcut pointcut = new StaticMethodMatcherPointcut() {
		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return JobGuardAdvisor.this.jobs.find(method, targetClass) != null;
		}
	};

	/**
	 * @param guard the job guard, resolved on first firing
	 * @param lockAtMostFor the limit of jobs that set none
	 * @param lockAtLeastFor the minimum hold of jobs that set none
	 * @param guardAllScheduled whether {@code @Scheduled} methods without {@code @JobGuard} are guarded too
	 */
	public JobGuardAdvisor(ObjectProvider<RedisJobGuard> guard, Duration lockAtMostFor, Duration lockAtLeastFor,
			boolean guardAllScheduled) {
		this.jobs = new JobDefinitions(lockAtMostFor, lockAtLeastFor, guardAllScheduled);
		this.interceptor = new JobGuardInterceptor(this.jobs, guard);
		setOrder(Ordered.LOWEST_PRECEDENCE - 100);
	}

	/** The guarded jobs found so far (all of them once the application context has started). */
	public List<GuardedJob> jobs() {
		return this.jobs.all();
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.jobs.setBeanFactory(configurable);
		}
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
