package dev.lockstep.integration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

import dev.lockstep.LockService;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;

/**
 * Spring Integration on Lockstep: a {@link LockstepLockRegistry} over the application's
 * {@link LockService} as its {@link LockRegistry}, unless the application defines a
 * {@code LockRegistry} of its own.
 */
@AutoConfiguration(after = LockstepAutoConfiguration.class)
@ConditionalOnClass({ LockRegistry.class, LockService.class })
@ConditionalOnBean(LockService.class)
public final class LockstepIntegrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	LockstepLockRegistry lockstepLockRegistry(LockService lockService) {
		return new LockstepLockRegistry(lockService);
	}

}
