package dev.lockstep.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstep.sample.SampleHttp.Reply;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The sample processed ahead of time ({@code -Paot}: {@code spring-boot:process-aot}) and started
 * with {@code -Dspring.aot.enabled=true}, so its context is the generated one: a lock, a serial
 * group, a queued task read back as its payload type, the guarded job, the console's JSON and the
 * actuator's. On the JVM, not a native image (docs/operations.md says what that leaves untested).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class SampleAotIT {

	private static final Duration AWAIT_TIMEOUT = Duration.ofSeconds(30);

	private RedisServer redis;

	private Path dataDir;

	private SampleInstance instance;

	@BeforeAll
	void startProcessedAheadOfTime() {
		assumeTrue(Boolean.getBoolean("sample.aot"), "the sample is processed ahead of time only with -Paot");
		String jar = System.getProperty("sample.jar");
		if (jar == null || !Files.isRegularFile(Path.of(jar))) {
			fail("System property sample.jar must name the packaged app (the POM sets it for failsafe), was " + jar);
		}
		this.redis = RedisServer.start();
		try {
			this.dataDir = Files.createTempDirectory("lockstep-sample-aot-");
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		this.instance = SampleInstance.start(Path.of(jar), "aot", List.of("-Dspring.aot.enabled=true"),
				List.of("--spring.data.redis.host=" + this.redis.host(), "--spring.data.redis.port=" + this.redis.port(),
						"--sample.data-dir=" + this.dataDir, "--sample.push.cron=*/2 * * * * *"));
		this.instance.awaitStarted(Duration.ofSeconds(120));
		// Boot says so when it runs the generated context; without it this test would test nothing new
		assertThat(this.instance.output()).contains("AOT-processed");
	}

	@AfterAll
	void stop() throws IOException {
		if (this.instance != null) {
			this.instance.stop(Path.of(System.getProperty("sample.logs", "target")));
		}
		if (this.redis != null) {
			this.redis.close();
		}
		if (this.dataDir != null) {
			try (var files = Files.walk(this.dataDir)) {
				files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
		}
	}

	@Test
	void everyFeatureWorksInTheGeneratedContext() {
		// @DistributedLock
		assertThat(SampleHttp.post(this.instance.uri("/users"), Map.of("pin", "pin-aot", "name", "Ahead")).status())
			.isEqualTo(201);
		assertThat(SampleHttp.get(this.instance.uri("/users/pin-aot")).json().get("name").asString()).isEqualTo("Ahead");
		// @SerialGroup
		Reply sync = SampleHttp.post(this.instance.uri("/imports/sync"),
				Map.of("requestId", "sync-aot", "tenantId", "aot", "entityCode", "sync", "workMillis", 10));
		assertThat(sync.status()).as("%s", sync).isBetween(200, 299);
		// @SerialQueueListener: the payload read back as the listener's type
		Reply queued = SampleHttp.post(this.instance.uri("/imports"),
				Map.of("requestId", "queued-aot", "tenantId", "aot", "entityCode", "queued", "workMillis", 10));
		assertThat(queued.status()).as("%s", queued).isEqualTo(202);
		String taskId = queued.json().get("taskId").asString();
		await("the queued import done",
				() -> SampleHttp.get(this.instance.uri("/imports/" + taskId)).json().get("state").asString().equals("DONE"));
		// @JobGuard
		await("a push run recorded", () -> !SampleHttp.get(this.instance.uri("/push/runs")).json().isEmpty());
		// the endpoint's answers, the health details and the console's JSON, written by Jackson
		JsonNode overview = SampleHttp.get(this.instance.uri("/actuator/lockstep")).json();
		assertThat(overview.get("jobs")).extracting(JsonNode::asString).containsExactly("daily-push");
		await("the job's last run in the endpoint", () -> SampleHttp.get(this.instance.uri("/actuator/lockstep/jobs/daily-push"))
			.json()
			.get("lastRun")
			.has("instance"));
		JsonNode queue = SampleHttp.get(this.instance.uri("/actuator/lockstep/queues/imports")).json();
		assertThat(queue.get("settings").has("leaseTime")).as("%s", queue).isTrue();
		assertThat(queue.get("stats").has("queued")).as("%s", queue).isTrue();
		assertThat(SampleHttp.get(this.instance.uri("/actuator/health/lockstep")).json().get("status").asString())
			.isEqualTo("UP");
		JsonNode cluster = SampleHttp.get(this.instance.uri("/lockstep/api/cluster")).json();
		assertThat(cluster.get("instances")).extracting((each) -> each.get("id").asString()).contains("aot");
		assertThat(SampleHttp.getPage(this.instance.uri("/lockstep/")).body()).contains("<html");
	}

	/**
	 * What Spring's AOT engine wrote for GraalVM from Lockstep's registrars (the JVM run above needs
	 * none of it: this is the part a native image would).
	 */
	@Test
	void theGeneratedMetadataCarriesLockstepsHints() {
		Path file = Path.of(System.getProperty("sample.aot.metadata", "target/missing"));
		assertThat(file).as("the metadata process-aot writes").isRegularFile();
		JsonNode metadata = JsonMapper.builder().build().readTree(file.toFile());
		List<String> globs = metadata.get("resources").valueStream().map((glob) -> glob.get("glob").asString()).toList();
		assertThat(globs).contains("dev/lockstep/**/*.lua", "dev/lockstep/console/static/*");
		Map<String, JsonNode> types = metadata.get("reflection")
			.valueStream()
			.filter((type) -> type.get("type").isString()) // a proxy's is an object naming its interfaces
			.collect(Collectors.toMap((type) -> type.get("type").asString(), (type) -> type, (one, other) -> one));
		assertThat(types).containsKeys("dev.lockstep.annotation.DistributedLock", "dev.lockstep.JobRun",
				"dev.lockstep.autoconfigure.actuate.LockstepEndpoint$JobDetail", "dev.lockstep.console.ClusterView$Cluster");
		assertThat(types.get("dev.lockstep.sample.importing.ImportWorker").get("methods").valueStream()
			.map((method) -> method.get("name").asString())).as("the listener method, invoked").contains("run");
	}

	private void await(String what, java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + AWAIT_TIMEOUT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				fail("Waited " + AWAIT_TIMEOUT + " for " + what + ".\n" + this.instance.output());
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

}
