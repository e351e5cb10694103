package dev.lockstep.console;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The console's auto-configuration against a real Redis: what it registers, and when. */
class ConsoleAutoConfigurationTests {

	private final String prefix = "console-auto-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				WebMvcAutoConfiguration.class, SecurityAutoConfiguration.class, ServletWebSecurityAutoConfiguration.class,
				ConsoleAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(), "lockstep.key-prefix=" + this.prefix,
				"lockstep.instance-id=auto-1", "lockstep.console.heartbeat-interval=200ms");

	@Test
	void offUnlessEnabledButTheHeartbeatIsWritten() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(ConsoleController.class).hasSingleBean(InstanceHeartbeat.class);
			assertThat(context.getBeansOfType(SecurityFilterChain.class)).doesNotContainKey("lockstepConsoleSecurity");
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> redis.hasKey(this.prefix + "console:instance:auto-1") && redis.hasKey(this.prefix + "console:alive:auto-1"));
			assertThat(redis.getExpire(this.prefix + "console:alive:auto-1")).isBetween(0L, 1L);
		});
	}

	@Test
	void withSecurityItsChainGuardsTheConsoleAndBootsDefaultChainStays() {
		this.runner.withPropertyValues("lockstep.console.enabled=true").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ConsoleController.class);
			assertThat(context.getBeansOfType(SecurityFilterChain.class)).containsKey("lockstepConsoleSecurity").hasSize(2);
		});
	}

	@Test
	void withoutSecurityActionsAreOffUnlessTurnedOn() {
		WebApplicationContextRunner noSecurity = this.runner.withClassLoader(new FilteredClassLoader(HttpSecurity.class))
			.withPropertyValues("lockstep.console.enabled=true");
		noSecurity.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(SecurityFilterChain.class);
			assertThat(pause(context.getBean(ConsoleController.class)).getStatusCode().value()).isEqualTo(403);
		});
		noSecurity.withPropertyValues("lockstep.console.actions-enabled=true").run((context) -> {
			var reply = pause(context.getBean(ConsoleController.class));
			assertThat(reply.getStatusCode().value()).isEqualTo(200);
			// no serial queue in this context: the action says so rather than act
			assertThat(reply.getBody().message()).contains("no Lockstep serial queue here");
		});
	}

	@Test
	void anInstanceWhoseRedisNoLongerAnswersStopsWithinTheCommandTimeout() {
		try (FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port())) {
			this.runner.withPropertyValues("spring.data.redis.host=" + proxy.host(), "spring.data.redis.port=" + proxy.port(),
					"lockstep.command-timeout=1s").run((context) -> {
						StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
						await().atMost(Duration.ofSeconds(10)).until(() -> redis.hasKey(this.prefix + "console:alive:auto-1"));
						// Redis stops answering (paused, cut off): the client's own timeout is a minute
						proxy.stall();
						long start = System.nanoTime();
						context.close();
						assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to stop, command timeout 1s")
							.isLessThan(Duration.ofSeconds(10));
					});
		}
	}

	@Test
	void badPathFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("lockstep.console.enabled=true", "lockstep.console.path=lockstep/")
			.run((context) -> assertThat(context).getFailure().rootCause().hasMessageContaining("lockstep.console.path"));
	}

	private static org.springframework.http.ResponseEntity<ConsoleActions.Result> pause(ConsoleController controller) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/lockstep/api/actions/pause");
		return controller.act("pause", request, "pause", "work", null, null, null, null, null, null);
	}

}
