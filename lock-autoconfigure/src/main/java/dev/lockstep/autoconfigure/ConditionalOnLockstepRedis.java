package dev.lockstep.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Matches where Lockstep runs on the application's Redis connection: Lettuce on the classpath, a
 * {@link RedisConnectionFactory} bean and {@code lockstep.enabled} not set to {@code false}. Each
 * Lockstep auto-configuration on that connection carries it; an application's own configuration that
 * goes with Lockstep can too (placed after {@code LockstepAutoConfiguration}, as conditions on beans
 * need).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ConditionalOnClass(name = "io.lettuce.core.RedisClient")
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "lockstep.enabled", matchIfMissing = true)
public @interface ConditionalOnLockstepRedis {

}
