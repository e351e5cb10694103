package dev.lockstep.autoconfigure.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.RateLimited;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lockstep's exceptions as HTTP answers in a real Spring WebFlux application (Reactor Netty) on a
 * real Redis: the same statuses and problem details as in Spring MVC.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReactiveProblemDetailsTests {

	private static final HttpClient http = HttpClient.newHttpClient();

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(App.class).web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "spring.data.redis.host=" + TestRedis.standalone().host(),
					"spring.data.redis.port=" + TestRedis.standalone().port(),
					"lockstep.key-prefix=wf" + UUID.randomUUID().toString().substring(0, 8) + ":")
			.run();
	}

	@AfterAll
	static void stop() {
		if (context != null) {
			context.close();
		}
	}

	@Test
	void theAnswersAreProblemDetailsInAWebFluxApplication() throws Exception {
		assertThat(context.getBeanNamesForType(LockstepProblemDetails.class)).hasSize(1);
		try (LockHandle held = context.getBean(LockService.class).acquire("Locked.work:flux-secret", Duration.ZERO)) {
			HttpResponse<String> busy = get("/work?id=flux-secret");
			assertThat(busy.statusCode()).isEqualTo(409);
			assertThat(busy.headers().firstValue("Content-Type")).hasValueSatisfying(
					(type) -> assertThat(type).startsWith("application/problem+json"));
			assertThat(busy.body()).contains("\"title\":\"Lock not acquired\"").doesNotContain("flux-secret");
		}
		assertThat(get("/work?id=flux-secret").statusCode()).isEqualTo(200);
		HttpResponse<String> badKey = get("/work");
		assertThat(badKey.statusCode()).isEqualTo(400);
		assertThat(badKey.body()).contains("\"status\":400").doesNotContain("#id");
	}

	@Test
	void aRefusedCallAnswers429WithRetryAfter() throws Exception {
		assertThat(get("/limited").statusCode()).isEqualTo(200);
		HttpResponse<String> refused = get("/limited");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(refused.body()).contains("\"status\":429");
	}

	private static HttpResponse<String> get(String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		return http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		Locked locked() {
			return new Locked();
		}

		@Bean
		Endpoints endpoints(Locked locked) {
			return new Endpoints(locked);
		}

	}

	static class Locked {

		@DistributedLock(key = "#id", waitTime = "0")
		public String work(String id) {
			return "worked";
		}

		@RateLimited(key = "'one-a-minute'", limit = 1, per = "1m")
		public String limited() {
			return "allowed";
		}

	}

	@RestController
	static class Endpoints {

		private final Locked locked;

		Endpoints(Locked locked) {
			this.locked = locked;
		}

		@GetMapping("/work")
		Mono<String> work(@RequestParam(required = false) String id) {
			// the locked call blocks: off the event loop, as a WebFlux application would do it
			return Mono.fromCallable(() -> this.locked.work(id)).subscribeOn(Schedulers.boundedElastic());
		}

		@GetMapping("/limited")
		Mono<String> limited() {
			return Mono.fromCallable(this.locked::limited).subscribeOn(Schedulers.boundedElastic());
		}

	}

}
