package dev.lockstep.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Stops startup when the application has Redis but not Lettuce: Lockstep would otherwise stay
 * off without a word, and every {@code @DistributedLock}, {@code @SerialGroup} and
 * {@code @JobGuard} method would run unguarded.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnMissingClass("io.lettuce.core.RedisClient")
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "lockstep.enabled", matchIfMissing = true)
public final class LettuceRequiredAutoConfiguration {

	@Bean
	static Object lockstepRequiresLettuce() {
		throw new IllegalStateException("Lockstep runs on Lettuce, the default client of spring-boot-starter-data-redis, "
				+ "but io.lettuce:lettuce-core is not on the class path. Add it back, or set lockstep.enabled=false "
				+ "to run without Lockstep (its annotations then guard nothing).");
	}

}
