package dev.lockstep.console;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.lockstep.console.app.ConsoleTestApp;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis refusing connections: the console's API answers 503 "Redis unreachable" with the address
 * within the command timeout (it answered a bare 500 after Lettuce's minute), and the page says so
 * where it would say what it read (it stayed on "loading…").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsoleRedisDownTests {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private RedisServer redis;

	private ConfigurableApplicationContext app;

	private String url;

	@BeforeEach
	void start() {
		this.redis = RedisServer.start();
		// Lettuce's timeout as Boot leaves it, a minute, and Lockstep's command timeout as it leaves it, 5 s
		this.app = new SpringApplicationBuilder(ConsoleTestApp.class).web(WebApplicationType.SERVLET)
			.properties("server.port=0", "spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=60s",
					"lockstep.key-prefix=down-" + UUID.randomUUID().toString().substring(0, 8) + ":",
					"lockstep.instance-id=a", "lockstep.console.enabled=true", "spring.main.banner-mode=off")
			.run();
		this.url = "http://127.0.0.1:" + ((WebServerApplicationContext) this.app).getWebServer().getPort() + "/lockstep";
	}

	@AfterEach
	void stop() {
		if (this.app != null) {
			this.app.close();
		}
		this.redis.close();
	}

	@Test
	void clusterApiAnswersRedisUnreachableWithTheAddressWithinTheCommandTimeout() throws Exception {
		assertThat(cluster().statusCode()).isEqualTo(200);
		this.redis.kill();
		// Lettuce hears of the closed socket at once; the pause is not the bound under test
		Thread.sleep(300);
		for (int i = 0; i < 3; i++) {
			long start = System.nanoTime();
			HttpResponse<String> down = cluster();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to the console's answer")
				.isLessThan(Duration.ofSeconds(2));
			assertThat(down.statusCode()).isEqualTo(503);
			assertThat(down.body()).contains("\"error\":\"Redis unreachable: Redis at " + this.redis.host() + ":"
					+ this.redis.port());
		}
	}

	@Test
	void thePageSaysRedisIsUnreachableInsteadOfLoading() throws Exception {
		Path binary = Chromium.binary().orElse(null);
		if (binary == null) {
			// CI installs it (.ci/run); elsewhere the test is skipped without one
			assertThat(System.getenv("CI")).as("chromium on the PATH in CI").isNull();
			Assumptions.abort("no chromium on the PATH (or CHROMIUM)");
		}
		this.redis.kill();
		try (Chromium browser = Chromium.start(binary)) {
			browser.signIn("viewer", "viewer-secret");
			browser.navigate(this.url + "/");
			browser.await("document.getElementById('summary').textContent.startsWith('Redis unreachable: Redis at "
					+ this.redis.host() + ":" + this.redis.port() + "')", Duration.ofSeconds(20));
			assertThat(browser.evaluate("document.getElementById('message').textContent").asString())
				.startsWith("Could not read the cluster: Redis unreachable: Redis at ");
		}
	}

	private HttpResponse<String> cluster() throws Exception {
		String basic = Base64.getEncoder().encodeToString("viewer:viewer-secret".getBytes(StandardCharsets.UTF_8));
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.url + "/api/cluster"))
			.timeout(Duration.ofSeconds(20))
			.header("Authorization", "Basic " + basic)
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
