package dev.lockstep.autoconfigure.job;

import java.util.List;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.scheduling.annotation.ScheduledAnnotationBeanPostProcessor;

import dev.lockstep.GuardedJob;
import dev.lockstep.job.GuardedJobs;

/**
 * Once every bean is made: guarded jobs in an application without scheduling enabled (no
 * {@code @EnableScheduling}, so no {@code @Scheduled} method ever fires) get a warning that names
 * them. A warning, not a failure: a guarded method may also be called on demand.
 * @param beans the context's beans, where scheduling shows as its annotation post-processor
 * @param jobs the guarded jobs
 */
record SchedulingCheck(ListableBeanFactory beans, GuardedJobs jobs) implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(SchedulingCheck.class);

	@Override
	public void afterSingletonsInstantiated() {
		List<GuardedJob> guarded = this.jobs.all();
		if (guarded.isEmpty() || this.beans.getBeanNamesForType(ScheduledAnnotationBeanPostProcessor.class, false, false).length > 0) {
			return;
		}
		logger.warn("Lockstep guards {} job(s) but scheduling is not enabled, so their @Scheduled firings never happen: {}. "
				+ "Add @EnableScheduling to a configuration class (or ignore this if the application calls them itself).",
				guarded.size(), guarded.stream().map((job) -> job.name() + " (" + job.method() + ")").collect(Collectors.joining(", ")));
	}

}
