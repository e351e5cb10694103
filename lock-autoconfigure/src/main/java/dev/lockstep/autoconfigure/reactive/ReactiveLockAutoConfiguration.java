package dev.lockstep.autoconfigure.reactive;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.lockstep.ReactiveLockService;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.lock.RedisReactiveLockService;

/**
 * The {@link ReactiveLockService} on Lockstep's lock service, when Reactor is on the class path;
 * without it, nothing reactive is loaded.
 */
@AutoConfiguration(after = LockstepAutoConfiguration.class)
@ConditionalOnClass(name = "reactor.core.publisher.Mono")
@ConditionalOnBean(RedisLockService.class)
public final class ReactiveLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ReactiveLockService reactiveLockService(RedisLockService lockService) {
		return new RedisReactiveLockService(lockService);
	}

}
