package dev.lockstep.autoconfigure;

import java.util.List;
import java.util.Optional;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.LockListener;
import dev.lockstep.LockService;
import dev.lockstep.SerialGroups;
import dev.lockstep.aop.LockAnnotationAdvisor;
import dev.lockstep.group.LockServiceSerialGroups;
import dev.lockstep.internal.IsolatedListener;
import dev.lockstep.lock.RedisLockService;

/**
 * Lockstep on the application's own Redis connection ({@code spring.data.redis.*}: standalone,
 * Sentinel or Cluster): the {@link LockService}, {@link SerialGroups} and the advisor behind
 * {@code @DistributedLock} and {@code @SerialGroup}.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnLockstepRedis
@EnableConfigurationProperties(LockstepProperties.class)
@Import(AutoProxyCreatorRegistrar.class)
public final class LockstepAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockstepInstanceId lockstepInstanceId(LockstepProperties properties) {
		return LockstepInstanceId.of(properties);
	}

	@Bean
	@ConditionalOnMissingBean(LockService.class)
	RedisLockService lockService(RedisConnectionFactory connectionFactory, LockstepProperties properties,
			LockstepInstanceId instanceId, ObjectProvider<LockListener> listeners) {
		if (!(connectionFactory instanceof LettuceConnectionFactory)) {
			throw LettuceRequiredException.otherConnectionFactory(connectionFactory);
		}
		int replicaAcknowledgements = properties.lock().replicaAcknowledgements();
		if (replicaAcknowledgements > 0 && ((LettuceConnectionFactory) connectionFactory).isClusterAware()) {
			// the service refuses it too when it starts, but as a stack trace; this is the operator's report
			throw UnsupportedSettingException.replicaAcknowledgementsOnACluster(replicaAcknowledgements);
		}
		RedisLockService lockService = new RedisLockService(connectionFactory);
		lockService.setInstanceId(instanceId.value());
		lockService.setKeyPrefix(properties.keyPrefix());
		lockService.setLeaseTime(properties.lock().leaseTime());
		lockService.setHeartbeatInterval(properties.heartbeatInterval());
		lockService.setCommandTimeout(properties.commandTimeout());
		lockService.setShutdownTimeout(properties.lock().shutdownTimeout());
		lockService.setReplicaAcknowledgements(replicaAcknowledgements);
		combined(listeners).ifPresent(lockService::setListener);
		return lockService;
	}

	/**
	 * The application's {@link LockListener} beans, in order, as one listener (see
	 * {@link #combine(List)}), or empty when it has none: a service then keeps its own no-op listener.
	 */
	public static Optional<LockListener> combined(ObjectProvider<LockListener> listeners) {
		List<LockListener> all = listeners.orderedStream().toList();
		return all.isEmpty() ? Optional.empty() : Optional.of(combine(all));
	}

	/** One listener that passes every event to each of {@code listeners}, in order, each isolated from the others. */
	public static LockListener combine(List<LockListener> listeners) {
		return IsolatedListener.of(listeners);
	}

	@Bean
	@ConditionalOnMissingBean
	SerialGroups serialGroups(LockService lockService) {
		return new LockServiceSerialGroups(lockService);
	}

	@Bean
	@ConditionalOnMissingBean
	LockLostEventPublisher lockLostEventPublisher() {
		return new LockLostEventPublisher();
	}

	/** Static and bound straight from the environment: advisors are created before most beans. */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockAnnotationAdvisor lockAnnotationAdvisor(ObjectProvider<LockService> lockService,
			ObjectProvider<SerialGroups> serialGroups, Environment environment) {
		LockstepProperties properties = Binder.get(environment).bindOrCreate("lockstep", LockstepProperties.class);
		LockAnnotationAdvisor advisor = new LockAnnotationAdvisor(lockService, serialGroups,
				properties.lock().waitTime(), properties.serialGroup().waitTime());
		advisor.setOrder(properties.advisorOrder());
		return advisor;
	}

}
