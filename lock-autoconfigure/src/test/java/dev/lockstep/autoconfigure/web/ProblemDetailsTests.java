package dev.lockstep.autoconfigure.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/** Lockstep's exceptions as HTTP answers in a real Spring MVC application on a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProblemDetailsTests {

	private final HttpClient http = HttpClient.newHttpClient();

	private final List<AutoCloseable> toClose = new ArrayList<>();

	private ConfigurableApplicationContext context;

	@AfterEach
	void close() throws Exception {
		if (this.context != null) {
			this.context.close();
		}
		for (AutoCloseable closeable : this.toClose) {
			closeable.close();
		}
	}

	@Test
	void aLockHeldElsewhereAnswers409WithAProblemDetailThatDoesNotShowTheKey() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port());
		LockService locks = this.context.getBean(LockService.class);
		try (LockHandle held = locks.acquire("Locked.work:tenant-secret", Duration.ZERO)) {
			Response response = get("/work?id=tenant-secret");
			assertThat(response.status()).isEqualTo(409);
			assertThat(response.contentType()).startsWith("application/problem+json");
			assertThat(response.body()).contains("\"status\":409").contains("\"title\":\"Lock not acquired\"")
				.doesNotContain("tenant-secret").doesNotContain("Locked.work");
		}
		assertThat(get("/work?id=tenant-secret").status()).isEqualTo(200);
	}

	@Test
	void aRefusedStaleWriteAnswers409WithoutNamingTheLockOrTable() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port());
		Response response = get("/stale");
		assertThat(response.status()).isEqualTo(409);
		assertThat(response.body()).contains("\"title\":\"Stale write refused\"").doesNotContain("tenant-secret")
			.doesNotContain("accounts");
	}

	@Test
	void redisUnreachableAnswers503WithRetryAfter() throws Exception {
		FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
		this.toClose.add(proxy);
		start(proxy.host(), proxy.port(), "lockstep.command-timeout=1s");
		assertThat(get("/work?id=a").status()).isEqualTo(200);
		proxy.refuseNew();
		proxy.cutAll();
		Response response = get("/work?id=a");
		assertThat(response.status()).isEqualTo(503);
		assertThat(response.retryAfter()).isEqualTo("1");
		assertThat(response.body()).contains("\"status\":503").contains("Coordination unavailable");
	}

	/**
	 * The expression was checked at startup; what fails now is these arguments (a missing id here):
	 * the caller's input, so 400, which a client does not retry as it may a 5xx.
	 */
	@Test
	void aKeyThatFailsAnswers400NamingNothingInternal() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port());
		Response response = get("/work");
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.body()).contains("\"status\":400").contains("\"title\":\"No usable lock key\"")
			.doesNotContain("#id").doesNotContain("Locked.work");
	}

	@Test
	void theApplicationsOwnHandlerComesFirstAndThePropertyTurnsItOff() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port());
		LockService locks = this.context.getBean(LockService.class);
		try (LockHandle held = locks.acquire("Locked.work:x", Duration.ZERO)) {
			assertThat(get("/own?id=x").status()).as("the controller's own handler").isEqualTo(423);
		}
		this.context.close();
		start(TestRedis.standalone().host(), TestRedis.standalone().port(), "lockstep.web.problem-details=false");
		locks = this.context.getBean(LockService.class);
		try (LockHandle held = locks.acquire("Locked.work:x", Duration.ZERO)) {
			assertThat(this.context.getBeanNamesForType(LockstepProblemDetails.class)).isEmpty();
			assertThat(get("/work?id=x").status()).as("Spring's own answer when turned off").isEqualTo(500);
		}
	}

	private void start(String host, int port, String... properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "spring.data.redis.host=" + host,
				"spring.data.redis.port=" + port, "spring.data.redis.timeout=1s",
				"lockstep.key-prefix=w" + UUID.randomUUID().toString().substring(0, 8) + ":"));
		all.addAll(List.of(properties));
		this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.properties(all.toArray(String[]::new))
			.run();
	}

	private Response get(String path) throws Exception {
		int port = ((WebServerApplicationContext) this.context).getWebServer().getPort();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		return new Response(response.statusCode(), response.body(),
				response.headers().firstValue("Content-Type").orElse(""),
				response.headers().firstValue("Retry-After").orElse(null));
	}

	record Response(int status, String body, String contentType, String retryAfter) {
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

		@Bean
		OwnHandling ownHandling(Locked locked) {
			return new OwnHandling(locked);
		}

	}

	static class Locked {

		@DistributedLock(key = "#id", waitTime = "0")
		public String work(String id) {
			return "worked";
		}

	}

	@RestController
	static class Endpoints {

		private final Locked locked;

		Endpoints(Locked locked) {
			this.locked = locked;
		}

		@GetMapping("/work")
		String work(@RequestParam(required = false) String id) {
			return this.locked.work(id);
		}

		@GetMapping("/stale")
		String stale() {
			throw new dev.lockstep.StaleLockException("Locked.work:tenant-secret", 4, 5L, "table accounts");
		}

	}

	@RestController
	static class OwnHandling {

		private final Locked locked;

		OwnHandling(Locked locked) {
			this.locked = locked;
		}

		@GetMapping("/own")
		String own(@RequestParam String id) {
			return this.locked.work(id);
		}

		@ExceptionHandler
		ResponseEntity<String> busy(LockNotAcquiredException ex) {
			return ResponseEntity.status(HttpStatus.LOCKED).body("busy, our way");
		}

	}

}
