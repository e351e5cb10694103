package dev.lockstep.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.lockstep.RateLimitExceededException;
import dev.lockstep.RateLimiter;
import dev.lockstep.annotation.RateLimited;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.ratelimit.RateLimitAdvisor;
import dev.lockstep.ratelimit.RedisRateLimiter;
import dev.lockstep.ratelimit.WhenUnavailable;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** The RateLimiter bean, @RateLimited, meters and the 429 answer wired by Boot, on a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RateLimitAutoConfigurationTests {

	private static final String[] REDIS = { "spring.data.redis.host=" + TestRedis.standalone().host(),
			"spring.data.redis.port=" + TestRedis.standalone().port() };

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withPropertyValues(REDIS)
		.withPropertyValues("lockstep.key-prefix=" + prefix());

	private final WebApplicationContextRunner web = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				RateLimitAutoConfiguration.class, JacksonAutoConfiguration.class,
				HttpMessageConvertersAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
				WebMvcAutoConfiguration.class))
		.withPropertyValues(REDIS)
		.withPropertyValues("lockstep.key-prefix=" + prefix());

	private static String prefix() {
		return "r" + UUID.randomUUID().toString().substring(0, 8) + ":";
	}

	@Test
	void annotatedBeansAreLimitedAndDecisionsCountedByNameAndOutcome() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withUserConfiguration(Searches.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitAdvisor.class).doesNotHaveBean(RateLimitExceededHandler.class);
				Search search = context.getBean(Search.class);
				search.run("t1");
				search.run("t1");
				assertThatThrownBy(() -> search.run("t1")).isInstanceOf(RateLimitExceededException.class)
					.hasMessageContaining("'search:t1'");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("lockstep.rate-limit.calls").tag("name", "search").tag("outcome", "allowed")
					.counter().count()).isEqualTo(2);
				assertThat(meters.get("lockstep.rate-limit.calls").tag("name", "search").tag("outcome", "refused")
					.counter().count()).isEqualTo(1);
			});
	}

	@Test
	void bindsWhenUnavailableAndBacksOffWhenDisabled() {
		this.runner.withPropertyValues("lockstep.rate-limit.when-unavailable=allow")
			.run((context) -> assertThat(context.getBean(RedisRateLimiter.class)).extracting("whenUnavailable")
				.isEqualTo(WhenUnavailable.ALLOW));
		this.runner.run((context) -> assertThat(context.getBean(RedisRateLimiter.class)).extracting("whenUnavailable")
			.isEqualTo(WhenUnavailable.REFUSE));
		this.runner.withPropertyValues("lockstep.rate-limit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimiter.class).doesNotHaveBean(RateLimitAdvisor.class));
	}

	@Test
	void aRefusedRequestIsAnswered429WithRetryAfterAndAProblem() {
		this.web.withUserConfiguration(Searches.class, SearchController.class).run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
			mvc.perform(get("/search/t1")).andExpect(status().isOk());
			mvc.perform(get("/search/t1")).andExpect(status().isOk());
			mvc.perform(get("/search/t1"))
				.andExpect(status().isTooManyRequests())
				.andExpect(header().string("Retry-After", "30"))
				.andExpect(content().contentTypeCompatibleWith("application/problem+json"))
				.andExpect(jsonPath("$.status").value(429))
				.andExpect(jsonPath("$.title").value("Too Many Requests"))
				.andExpect(jsonPath("$.detail").value("Rate limit of 2 per 1m exceeded; retry after 30 seconds."))
				.andExpect(jsonPath("$.retryAfter").value(30));
			mvc.perform(get("/search/t2")).andExpect(status().isOk());
		});
	}

	@Test
	void theApplicationsOwnHandlerWins() {
		this.web.withUserConfiguration(Searches.class, SearchController.class, OwnHandler.class).run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
			mvc.perform(get("/search/t1")).andExpect(status().isOk());
			mvc.perform(get("/search/t1")).andExpect(status().isOk());
			mvc.perform(get("/search/t1")).andExpect(status().isServiceUnavailable())
				.andExpect(content().string("busy"));
		});
	}

	@Test
	void retryAfterIsWholeSecondsRoundedUp() {
		assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofMillis(1))).isEqualTo(1);
		assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofMillis(1000))).isEqualTo(1);
		assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ofMillis(1001))).isEqualTo(2);
		assertThat(RateLimitExceededHandler.retryAfterSeconds(Duration.ZERO)).isEqualTo(1);
	}

	@Configuration(proxyBeanMethods = false)
	static class Searches {

		@Bean
		Search search() {
			return new Search();
		}

	}

	static class Search {

		/** 2 per minute: the third call within the minute waits 30 s for its slot. */
		@RateLimited(key = "#tenantId", limit = 2, per = "1m", name = "search")
		public String run(String tenantId) {
			return "results for " + tenantId;
		}

	}

	@RestController
	static class SearchController {

		private final Search search;

		SearchController(Search search) {
			this.search = search;
		}

		@GetMapping("/search/{tenantId}")
		String search(@PathVariable String tenantId) {
			return this.search.run(tenantId);
		}

	}

	@RestControllerAdvice
	static class OwnHandler {

		@ExceptionHandler(RateLimitExceededException.class)
		ResponseEntity<String> busy(RateLimitExceededException ex) {
			return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("busy");
		}

	}

}
