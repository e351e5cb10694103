package dev.lockstep.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.lockstep.autoconfigure.LockstepAutoConfiguration;

/**
 * Records Lockstep's lock and job events as Micrometer meters when a {@link MeterRegistry} exists.
 */
@AutoConfiguration(before = LockstepAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "lockstep.enabled", matchIfMissing = true)
public final class LockstepMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerLockListener lockstepMetrics(MeterRegistry registry) {
		return new MicrometerLockListener(registry);
	}

}
