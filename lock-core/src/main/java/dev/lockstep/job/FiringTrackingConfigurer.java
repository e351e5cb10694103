package dev.lockstep.job;

import org.springframework.core.Ordered;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Runs last among the {@link SchedulingConfigurer}s and puts a {@link FiringTrackingScheduler} in front of
 * whatever scheduler the registrar ended up with, so that guarded jobs know which firing they
 * run, whether they come from {@code @Scheduled} or from another configurer.
 */
public final class FiringTrackingConfigurer implements SchedulingConfigurer, Ordered {

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		TaskScheduler scheduler = registrar.getScheduler();
		if (scheduler != null && !(scheduler instanceof FiringTrackingScheduler)) {
			registrar.setTaskScheduler(new FiringTrackingScheduler(scheduler));
		}
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
