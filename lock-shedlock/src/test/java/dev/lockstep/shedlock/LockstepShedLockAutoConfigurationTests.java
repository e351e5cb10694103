package dev.lockstep.shedlock;

import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.core.LockProvider;
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

import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/** When the ShedLock auto-configuration registers its provider, on a real Redis. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockstepShedLockAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				LockstepShedLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(),
				"lockstep.key-prefix=sa" + UUID.randomUUID().toString().substring(0, 8) + ":");

	@Test
	void registersTheProviderAsTheApplicationsLockProvider() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class);
			assertThat(context.getBean(LockProvider.class)).isInstanceOf(LockstepLockProvider.class);
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesALockProvider() {
		this.runner.withUserConfiguration(OwnProvider.class).run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class).doesNotHaveBean(LockstepLockProvider.class);
			assertThat(context.getBean(LockProvider.class)).isSameAs(OwnProvider.PROVIDER);
		});
	}

	@Test
	void backsOffWithoutShedLock() {
		this.runner.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).doesNotHaveBean(LockstepLockProvider.class));
	}

	@Test
	void isListedAsAnAutoConfigurationAfterLockstepsOwn() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(LockstepShedLockAutoConfiguration.class.getName());
		assertThat(LockstepShedLockAutoConfiguration.class.getAnnotation(AutoConfiguration.class).after())
			.contains(LockstepAutoConfiguration.class);
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnProvider {

		static final LockProvider PROVIDER = (configuration) -> Optional.empty();

		@Bean
		LockProvider ownLockProvider() {
			return PROVIDER;
		}

	}

}
