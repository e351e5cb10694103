package dev.lockstep.sample.redis;

import java.util.List;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Starts an {@link EmbeddedRedisServer} and points {@code spring.data.redis} at it when the
 * application names no Redis of its own, before any auto-configuration reads those properties.
 * Registered in {@code META-INF/spring.factories}.
 */
public class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** Any of these set means the application has a Redis, and nothing is started. */
	static final List<String> REDIS_PROPERTIES = List.of("spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.master",
			"spring.data.redis.sentinel.nodes");

	static final String ENABLED_PROPERTY = "sample.embedded-redis.enabled";

	static final String PORT_PROPERTY = "sample.embedded-redis.port";

	static final int DEFAULT_PORT = 6390;

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		ConfigurableEnvironment environment = context.getEnvironment();
		if (!environment.getProperty(ENABLED_PROPERTY, Boolean.class, true) || isRedisConfigured(environment)) {
			return;
		}
		EmbeddedRedisServer server = EmbeddedRedisServer.start(environment.getProperty(PORT_PROPERTY, Integer.class, DEFAULT_PORT));
		environment.getPropertySources()
			.addLast(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", EmbeddedRedisServer.HOST, "spring.data.redis.port", server.port())));
		// Shutdown handlers run once every context has closed, so the lock service, the connection
		// factory and in-flight requests keep their Redis to the end; they also run after a failed start.
		SpringApplication.getShutdownHandlers().add(server::stop);
	}

	static boolean isRedisConfigured(ConfigurableEnvironment environment) {
		return REDIS_PROPERTIES.stream().anyMatch((name) -> StringUtils.hasText(environment.getProperty(name)));
	}

}
