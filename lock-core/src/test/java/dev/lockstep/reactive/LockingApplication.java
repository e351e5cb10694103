package dev.lockstep.reactive;

import java.time.Duration;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import dev.lockstep.aop.LockAnnotationProxies;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;

/**
 * What a context with annotated beans needs around them: a {@link RedisLockService} on the test's
 * Redis and key prefix, the annotations' advisor and a class-proxying auto-proxy creator.
 */
@Configuration(proxyBeanMethods = false)
@Import(LockAnnotationProxies.class)
class LockingApplication {

	/** A started context of {@code beans} on the test's Redis and key prefix; extra singletons first. */
	static AnnotationConfigApplicationContext start(RedisFixture redis, Class<?> beans, Object... singletons) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getBeanFactory().registerSingleton("testRedis", redis);
		for (Object singleton : singletons) {
			context.getBeanFactory().registerSingleton(singleton.getClass().getSimpleName(), singleton);
		}
		context.register(LockingApplication.class, beans);
		context.refresh();
		return context;
	}

	@Bean
	RedisLockService lockService(RedisFixture redis) {
		RedisLockService service = new RedisLockService(redis.factory());
		service.setKeyPrefix(redis.prefix());
		service.setShutdownTimeout(Duration.ZERO);
		return service;
	}

}
