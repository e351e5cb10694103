package dev.lockstep.console;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.DispatcherServlet;

import dev.lockstep.JobGuardRegistry;
import dev.lockstep.LockStateRegistry;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialQueueRegistry;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.LockstepInstanceId;
import dev.lockstep.autoconfigure.LockstepProperties;
import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration;
import dev.lockstep.autoconfigure.queue.SerialQueueAutoConfiguration;
import dev.lockstep.internal.redis.RedisProbe;

/**
 * The Lockstep console: every instance with it on its class path writes a heartbeat record to
 * Redis; with {@code lockstep.console.enabled=true}, a servlet web application also serves the
 * console under {@code lockstep.console.path} (default {@code /lockstep}), behind the console's
 * roles when Spring Security is present (see {@link ConsoleSecurityConfiguration}).
 */
@AutoConfiguration(after = { LockstepAutoConfiguration.class, SerialQueueAutoConfiguration.class,
		JobGuardAutoConfiguration.class },
		afterName = "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration")
@ConditionalOnBean({ RedisConnectionFactory.class, LockstepInstanceId.class })
@ConditionalOnBooleanProperty(name = "lockstep.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ConsoleProperties.class)
@ImportRuntimeHints(ConsoleHints.class)
public final class ConsoleAutoConfiguration {

	static final String SECURITY_CLASS = "org.springframework.security.config.annotation.web.builders.HttpSecurity";

	@Bean
	ConsoleRedis lockstepConsoleRedis(RedisConnectionFactory connectionFactory, LockstepProperties properties) {
		return ConsoleRedis.under(new StringRedisTemplate(connectionFactory), properties.keyPrefix());
	}

	@Bean
	ConsoleStores lockstepConsoleStores(ConsoleRedis redis) {
		return ConsoleStores.in(redis);
	}

	/** Counts lock waits, tasks and job runs in memory, for the history (a {@code LockListener}). */
	@Bean
	ActivityListener lockstepConsoleActivity() {
		return new ActivityListener();
	}

	@Bean
	InstanceHeartbeat lockstepConsoleHeartbeat(ConsoleStores stores, LockstepInstanceId instanceId,
			ConsoleProperties properties, LockstepProperties lockstep, Environment environment, ObjectProvider<LockStateRegistry> locks,
			ObjectProvider<SerialQueueRegistry> queues, ObjectProvider<JobGuardRegistry> jobs, ActivityListener listener,
			ApplicationContext context) {
		return new InstanceHeartbeat(stores.records(), stores.history(), instanceId.value(),
				environment.getProperty("spring.application.version", "unknown"), properties.heartbeatInterval(),
				lockstep.commandTimeout(),
				locks.getIfUnique(), queues.getIfUnique(), jobs.getIfUnique(),
				new InstanceHeartbeat.Activity(listener, stores.activity(), stores.requests(), new JobTriggers(context)));
	}

	/** The console's page and API, in a servlet web application that turns it on. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(DispatcherServlet.class)
	@ConditionalOnBooleanProperty("lockstep.console.enabled")
	@Import(ConsoleSecurityConfiguration.class)
	static final class Web {

		@Bean
		ConsoleController lockstepConsoleController(ConsoleStores stores, LockstepInstanceId instanceId,
				ConsoleProperties properties, ApplicationContext context, RedisConnectionFactory connectionFactory,
				LockstepProperties lockstep, ObjectProvider<LockStateRegistry> locks,
				ObjectProvider<SerialQueueRegistry> queues, ObjectProvider<SerialQueue> queueActions,
				ObjectProvider<JobGuardRegistry> jobs) {
			ClusterView view = new ClusterView(stores, instanceId.value(), locks.getIfUnique(), queues.getIfUnique(),
					queueActions.getIfUnique(), jobs.getIfUnique());
			ConsoleActions actions = new ConsoleActions(stores.records(), instanceId.value(), locks.getIfUnique(),
					queueActions.getIfUnique(), queues.getIfUnique(), stores.requests());
			return new ConsoleController(view, new RedisProbe(connectionFactory, lockstep.commandTimeout()), actions, properties,
					ClassUtils.isPresent(SECURITY_CLASS, context.getClassLoader()));
		}

	}

}
