package dev.lockstep.sample.redis;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedRedisInitializerTests {

	@Test
	void nothingSetMeansNoRedisIsConfigured() {
		assertThat(EmbeddedRedisInitializer.isRedisConfigured(environment(Map.of("spring.data.redis.database", "2")))).isFalse();
	}

	@Test
	void aBlankValueDoesNotCount() {
		assertThat(EmbeddedRedisInitializer.isRedisConfigured(environment(Map.of("spring.data.redis.host", " ")))).isFalse();
	}

	@Test
	void anyOfTheConnectionPropertiesCounts() {
		for (String name : EmbeddedRedisInitializer.REDIS_PROPERTIES) {
			assertThat(EmbeddedRedisInitializer.isRedisConfigured(environment(Map.of(name, "x")))).as(name).isTrue();
		}
	}

	private static StandardEnvironment environment(Map<String, Object> properties) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
		return environment;
	}

}
