package dev.lockstep.autoconfigure.queue;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.lockstep.LockListener;
import dev.lockstep.autoconfigure.ConditionalOnLockstepRedis;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.LockstepInstanceId;
import dev.lockstep.autoconfigure.LockstepProperties;
import dev.lockstep.autoconfigure.QueueProperties;
import dev.lockstep.queue.QueueSettings;
import dev.lockstep.queue.RedisSerialQueue;
import dev.lockstep.queue.SerialQueueListeners;

/**
 * Serial queues: the {@link dev.lockstep.SerialQueue} bean on the application's Redis connection
 * and its Jackson mapper, and the workers of every {@code @SerialQueueListener} method.
 */
@AutoConfiguration(after = LockstepAutoConfiguration.class,
		afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnLockstepRedis
@ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
@ConditionalOnBooleanProperty(name = "lockstep.queue.enabled", matchIfMissing = true)
public final class SerialQueueAutoConfiguration {

	/** The queue; the application's {@link JsonMapper} writes and reads payloads (a plain one if it has none). */
	@Bean
	@ConditionalOnMissingBean(RedisSerialQueue.class)
	RedisSerialQueue serialQueue(RedisConnectionFactory connectionFactory, ObjectProvider<JsonMapper> jsonMapper,
			LockstepProperties properties, ObjectProvider<LockListener> listeners,
			ObjectProvider<LockstepInstanceId> instanceId) {
		RedisSerialQueue queue = new RedisSerialQueue(connectionFactory,
				jsonMapper.getIfAvailable(() -> JsonMapper.builder().findAndAddModules().build()));
		QueueProperties settings = properties.queue();
		queue.setKeyPrefix(properties.keyPrefix());
		queue.setCommandTimeout(properties.commandTimeout());
		queue.setShutdownTimeout(settings.shutdownTimeout());
		queue.setMaxPayloadSize(settings.maxPayloadSize());
		queue.setDefaults(settings.defaults());
		Map<String, QueueSettings> own = new LinkedHashMap<>();
		settings.queues().keySet().forEach((name) -> own.put(name, settings.settings(name)));
		queue.setQueueSettings(own);
		queue.setInstanceId(instanceId.getIfAvailable(() -> LockstepInstanceId.of(properties)).value());
		LockstepAutoConfiguration.combined(listeners).ifPresent(queue::setListener);
		return queue;
	}

	/** Gauges of the queues' counts, when Micrometer is there. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static final class QueueMetrics {

		@Bean
		QueueGauges lockstepQueueGauges(RedisSerialQueue queue, MeterRegistry registry, LockstepProperties properties) {
			return new QueueGauges(queue, registry, properties.queue().queues().keySet());
		}

	}

	/** Static: a bean post-processor, created before most beans. */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static SerialQueueListeners serialQueueListeners(ObjectProvider<RedisSerialQueue> queue) {
		return new SerialQueueListeners(queue);
	}

}
