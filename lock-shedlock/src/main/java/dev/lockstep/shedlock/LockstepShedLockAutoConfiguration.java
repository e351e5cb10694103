package dev.lockstep.shedlock;

import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.lockstep.LockService;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;

/**
 * ShedLock on Lockstep: a {@link LockstepLockProvider} over the application's {@link LockService}
 * as its ShedLock {@link LockProvider}, unless the application defines a {@code LockProvider} of its
 * own. {@code @EnableSchedulerLock} and {@code @SchedulerLock} stay as they are.
 */
@AutoConfiguration(after = LockstepAutoConfiguration.class)
@ConditionalOnClass({ LockProvider.class, LockService.class })
@ConditionalOnBean(LockService.class)
public final class LockstepShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	LockstepLockProvider lockstepLockProvider(LockService lockService) {
		return new LockstepLockProvider(lockService);
	}

}
