package dev.lockstep.console;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import jakarta.servlet.Filter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import dev.lockstep.SerialQueue;
import dev.lockstep.SerialTask;
import dev.lockstep.annotation.SerialQueueListener;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

/**
 * The console's actions as HTTP requests (MockMvc through the application's Spring Security filter
 * chain, on a real Redis): what a request with a bad or unknown field answers, what it leaves in
 * Redis, and what the action's log line shows of it; and that no other site may frame the page
 * whose buttons act.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsoleActionRequestTests {

	private final String prefix = "console-req-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	/** One application with Spring Security for the tests (they act on queues and keys of their own). */
	private ConfigurableApplicationContext context;

	private MockMvc mvc;

	@BeforeAll
	void start() {
		this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.properties("server.port=0", "spring.main.banner-mode=off", "spring.data.redis.host=" + TestRedis.standalone().host(),
					"spring.data.redis.port=" + TestRedis.standalone().port(), "lockstep.key-prefix=" + this.prefix,
					"lockstep.instance-id=req-1", "lockstep.console.enabled=true", "lockstep.console.heartbeat-interval=200ms",
					"lockstep.queue.shutdown-timeout=0s", "lockstep.lock.shutdown-timeout=0s")
			.run();
		this.mvc = MockMvcBuilders.webAppContextSetup((WebApplicationContext) this.context)
			.addFilters(this.context.getBean("springSecurityFilterChain", Filter.class))
			.build();
		// after the start, which sets logging up
		this.logged.start();
		((Logger) LoggerFactory.getLogger(ConsoleActions.class)).addAppender(this.logged);
	}

	@AfterAll
	void stop() {
		((Logger) LoggerFactory.getLogger(ConsoleActions.class)).detachAppender(this.logged);
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void actionLogLinesEscapeControlCharactersOfTheRequestsValues() throws Exception {
		run((context, mvc) -> {
			String forged = "x\n2026-01-01T00:00:00.000Z  INFO 1 --- [main] d.l.console.ConsoleActions : Lockstep console: "
					+ "admin asked to discard task 'y': discarded";
			MockHttpServletResponse response = act(mvc, "redrive", "queue", "work", "task", forged);
			assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(200);
			List<String> lines = new ArrayList<>();
			this.logged.list.forEach((event) -> lines.add(event.getFormattedMessage()));
			String line = lines.stream().filter((candidate) -> candidate.contains("asked to redrive task 'x")).findFirst().orElseThrow();
			assertThat(line).as("one line, its line break escaped").doesNotContain("\n").contains("x\\n2026-01-01");
		});
	}

	@Test
	void aQueueActionNamesAQueueTheClusterKnowsOrIsRefusedNamingIt() throws Exception {
		run((context, mvc) -> {
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			for (String action : List.of("pause", "resume")) {
				MockHttpServletResponse response = act(mvc, action, "queue", "imprts");
				assertThat(response.getStatus()).as(action + ": " + response.getContentAsString()).isEqualTo(400);
				assertThat(response.getContentAsString()).contains("queue 'imprts'");
			}
			MockHttpServletResponse redrive = act(mvc, "redrive", "queue", "imprts", "task", "t-1");
			assertThat(redrive.getStatus()).as(redrive.getContentAsString()).isEqualTo(400);
			assertThat(redrive.getContentAsString()).contains("queue 'imprts'");
			// a typo leaves nothing behind in Redis (a pause would last for good, on a queue the page never shows)
			assertThat(redis.hasKey(this.prefix + "{queue:imprts}:owners")).isFalse();

			// a queue another live instance runs: known, though this one does not listen to it
			new InstanceRecords(context.getBean(ConsoleRedis.class)).write(new InstanceRecords.InstanceRecord("req-2", "host",
					"1", "1", "req-2.run", System.currentTimeMillis(), List.of("remote"), List.of(), List.of(), List.of(), true),
					Duration.ofMinutes(1));
			MockHttpServletResponse remote = act(mvc, "pause", "queue", "remote");
			assertThat(remote.getStatus()).as(remote.getContentAsString()).isEqualTo(200);
			assertThat(remote.getContentAsString()).contains("\"done\":true");

			// a queue nobody runs any more, paused by the application: known while paused, so it can be resumed
			SerialQueue queue = context.getBean(SerialQueue.class);
			assertThat(queue.pause("retired", null)).isTrue();
			MockHttpServletResponse resumed = act(mvc, "resume", "queue", "retired");
			assertThat(resumed.getStatus()).as(resumed.getContentAsString()).isEqualTo(200);
			assertThat(queue.isPaused("retired")).isFalse();
		});
	}

	@Test
	void runNowOfAJobNoLiveInstanceGuardsAnswers400NamingItAndAsksNothing() throws Exception {
		run((context, mvc) -> {
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			MockHttpServletResponse unknown = act(mvc, "trigger", "job", "nightlly");
			assertThat(unknown.getStatus()).as(unknown.getContentAsString()).isEqualTo(400);
			assertThat(unknown.getContentAsString()).contains("'job'", "no live instance guards job 'nightlly'");
			assertThat(redis.hasKey(this.prefix + "console:job-trigger:nightlly")).as("a request asked").isFalse();
			assertThat(redis.hasKey(this.prefix + "console:job-triggers:nightlly")).as("a request recorded").isFalse();

			// a job a live instance guards but cannot call: known, so refused as an action, not as a bad request
			InstanceRecords records = new InstanceRecords(context.getBean(ConsoleRedis.class));
			records.write(new InstanceRecords.InstanceRecord("req-4", "host", "1", "1", "req-4.run", System.currentTimeMillis(),
					List.of(), List.of("with-arguments", "report"), List.of("report"), List.of(), true), Duration.ofMinutes(1));
			MockHttpServletResponse known = act(mvc, "trigger", "job", "with-arguments");
			assertThat(known.getStatus()).as(known.getContentAsString()).isEqualTo(200);
			assertThat(known.getContentAsString()).contains("\"done\":false", "takes arguments");
			// and one it can call: asked
			MockHttpServletResponse runnable = act(mvc, "trigger", "job", "report");
			assertThat(runnable.getStatus()).as(runnable.getContentAsString()).isEqualTo(200);
			assertThat(runnable.getContentAsString()).contains("\"done\":true", "req-4");
			assertThat(redis.hasKey(this.prefix + "console:job-trigger:report")).isTrue();
		});
	}

	@Test
	void aBadFieldValueAnswers400NamingTheField() throws Exception {
		run((context, mvc) -> {
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			MockHttpServletResponse token = act(mvc, "release", "key", "k", "holder", "h.1", "token", "abc");
			assertThat(token.getStatus()).isEqualTo(400);
			assertThat(token.getContentAsString()).contains("'token'");

			String longGroup = "g".repeat(2000);
			MockHttpServletResponse group = act(mvc, "pause", "queue", "work", "group", longGroup);
			assertThat(group.getStatus()).as(group.getContentAsString()).isEqualTo(400);
			assertThat(group.getContentAsString()).contains("roup", "2000 bytes", "1024");
			assertThat(redis.opsForSet().size(this.prefix + "{queue:work}:paused")).as("groups paused").isZero();
			MockHttpServletResponse resume = act(mvc, "resume", "queue", "work", "group", longGroup);
			assertThat(resume.getStatus()).as(resume.getContentAsString()).isEqualTo(400);
			assertThat(resume.getContentAsString()).contains("Group 'ggg", "to resume in queue 'work'", "2000 bytes", "1024");

			String longQueue = "q".repeat(2000);
			for (String action : List.of("pause", "resume", "redrive", "discard", "redrive-group")) {
				MockHttpServletResponse queue = act(mvc, action, "queue", longQueue, "task", "t-1", "group", "g");
				assertThat(queue.getStatus()).as(action + ": " + queue.getContentAsString()).isEqualTo(400);
				assertThat(queue.getContentAsString()).as(action).contains("Queue name 'qqq", "2000 bytes", "1024");
			}

			MockHttpServletResponse key = act(mvc, "release", "key", "k".repeat(2000), "holder", "h.1", "token", "7");
			assertThat(key.getStatus()).as(key.getContentAsString()).isEqualTo(400);
			assertThat(key.getContentAsString()).contains("2000 bytes", "1024");

			MockHttpServletResponse missing = act(mvc, "pause");
			assertThat(missing.getStatus()).isEqualTo(400);
			assertThat(missing.getContentAsString()).contains("'queue'");
		});
	}

	@Test
	void noOtherSiteMayFrameThePageWithOrWithoutSpringSecurity() throws Exception {
		run((context, mvc) -> {
			MockHttpServletResponse page = mvc.perform(get("/lockstep/").header("Authorization", operator()))
				.andReturn()
				.getResponse();
			assertThat(page.getStatus()).isEqualTo(200);
			assertThat(page.getHeader("Content-Security-Policy")).isEqualTo("frame-ancestors 'none'");
		});
		new WebApplicationContextRunner()
			.withClassLoader(new FilteredClassLoader(HttpSecurity.class))
			.withUserConfiguration(OpenApp.class)
			.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
					"spring.data.redis.port=" + TestRedis.standalone().port(), "lockstep.key-prefix=" + this.prefix,
					"lockstep.instance-id=req-3", "lockstep.console.enabled=true", "lockstep.console.actions-enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(SecurityFilterChain.class);
				MockHttpServletResponse page = MockMvcBuilders.webAppContextSetup(context).build()
					.perform(get("/lockstep/"))
					.andReturn()
					.getResponse();
				assertThat(page.getStatus()).isEqualTo(200);
				assertThat(page.getHeader("Content-Security-Policy")).isEqualTo("frame-ancestors 'none'");
			});
	}

	private void run(ContextConsumer2 test) throws Exception {
		test.accept(this.context, this.mvc);
	}

	/** POSTs the action as the operator, with the action header, and the parameters as pairs of name and value. */
	private static MockHttpServletResponse act(MockMvc mvc, String action, String... parameters) throws Exception {
		var request = post("/lockstep/api/actions/" + action).header(ConsoleController.ACTION_HEADER, action)
			.header("Authorization", operator());
		for (int i = 0; i < parameters.length; i += 2) {
			request.param(parameters[i], parameters[i + 1]);
		}
		return mvc.perform(request).andReturn().getResponse();
	}

	private static String operator() {
		return "Basic " + Base64.getEncoder().encodeToString("operator:operator-secret".getBytes(StandardCharsets.UTF_8));
	}

	interface ContextConsumer2 {

		void accept(ApplicationContext context, MockMvc mvc) throws Exception;

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("operator").password("{noop}operator-secret").roles("LOCKSTEP_OPERATOR").build());
		}

		@Bean
		Worker worker() {
			return new Worker();
		}

	}

	/** An application without Spring Security. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class OpenApp {

	}

	static class Worker {

		@SerialQueueListener(queue = "work")
		void run(String payload, SerialTask task) {
		}

	}

}
