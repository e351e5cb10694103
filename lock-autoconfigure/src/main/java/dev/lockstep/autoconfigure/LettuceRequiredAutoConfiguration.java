package dev.lockstep.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Stops startup when the application has Redis but not Lettuce: Lockstep would otherwise stay
 * off without a word, and every {@code @DistributedLock}, {@code @SerialGroup} and
 * {@code @JobGuard} method would run unguarded. {@link LettuceRequiredFailureAnalyzer} reports it.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnMissingClass("io.lettuce.core.RedisClient")
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "lockstep.enabled", matchIfMissing = true)
public final class LettuceRequiredAutoConfiguration {

	private static final String JEDIS = "redis.clients.jedis.Jedis";

	@Bean
	static Object lockstepRequiresLettuce() {
		boolean jedis = ClassUtils.isPresent(JEDIS, LettuceRequiredAutoConfiguration.class.getClassLoader());
		throw LettuceRequiredException.lettuceMissing(jedis);
	}

}
