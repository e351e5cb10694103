package dev.lockstep.integration;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/** When the Spring Integration auto-configuration registers its registry, on a real Redis. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockstepIntegrationAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				LockstepIntegrationAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(),
				"lockstep.key-prefix=ia" + UUID.randomUUID().toString().substring(0, 8) + ":");

	@Test
	void registersTheRegistryAsTheApplicationsLockRegistry() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class);
			LockRegistry<?> registry = context.getBean(LockRegistry.class);
			assertThat(registry).isInstanceOf(LockstepLockRegistry.class);
			String ran = registry.executeLocked("orders", () -> "ran");
			assertThat(ran).isEqualTo("ran");
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesALockRegistry() {
		this.runner.withUserConfiguration(OwnRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class).doesNotHaveBean(LockstepLockRegistry.class);
			assertThat(context.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
		});
	}

	@Test
	void backsOffWithoutSpringIntegration() {
		this.runner.withClassLoader(new FilteredClassLoader(LockRegistry.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockstepLockRegistry.class));
	}

	@Test
	void isListedAsAnAutoConfigurationAfterLockstepsOwn() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(LockstepIntegrationAutoConfiguration.class.getName());
		assertThat(LockstepIntegrationAutoConfiguration.class.getAnnotation(AutoConfiguration.class).after())
			.contains(LockstepAutoConfiguration.class);
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRegistry {

		@Bean
		DefaultLockRegistry ownLockRegistry() {
			return new DefaultLockRegistry();
		}

	}

}
