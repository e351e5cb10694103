package dev.lockstep.autoconfigure.security;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.Counters;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobRun;
import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialTask;
import dev.lockstep.annotation.JobGuard;
import dev.lockstep.annotation.SerialQueueListener;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications on one Redis with different {@code lockstep.key-prefix}, running at once with
 * the same lock keys, queue, group and job names: neither blocks, sees or changes the other's
 * locks, queued and dead tasks, job ledger or counters, through the API, the views or the
 * actuator (whose write operations are open in both).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PrefixIsolationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	private ConfigurableApplicationContext orders;

	private ConfigurableApplicationContext billing;

	@AfterEach
	void close() {
		Stream.of(this.orders, this.billing).filter((context) -> context != null).forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void twoApplicationsWithTheirOwnPrefixesNeitherSeeNorChangeTheOthersLocksQueuesJobsOrCounters() throws Exception {
		String run = Long.toString(System.nanoTime(), 36);
		this.orders = start("orders-" + run + ":", "orders-node");
		this.billing = start("billing-" + run + ":", "billing-node");

		// locks: the same key is held by both at once, each seeing only its own holder
		LockService ordersLocks = this.orders.getBean(LockService.class);
		LockService billingLocks = this.billing.getBean(LockService.class);
		try (LockHandle ordersHeld = ordersLocks.acquire("ledger", Duration.ZERO);
				LockHandle billingHeld = billingLocks.acquire("ledger", Duration.ZERO)) {
			assertThat(ordersHeld.isHeld()).isTrue();
			assertThat(billingHeld.isHeld()).isTrue();
			assertThat(((RedisLockService) billingLocks).keyState("ledger").holderInstance())
				.isEqualTo(((RedisLockService) billingLocks).getInstanceId());
			assertThat(get(this.billing, "/actuator/lockstep/locks/ledger"))
				.contains(((RedisLockService) billingLocks).getInstanceId())
				.doesNotContain(((RedisLockService) ordersLocks).getInstanceId());
			assertThat(get(this.billing, "/actuator/lockstep/locks")).contains("\"key\":\"ledger\"").doesNotContain("orders-");
		}

		// queues: same queue and group names; each listener gets only its own application's tasks
		SerialQueue ordersQueue = this.orders.getBean(SerialQueue.class);
		SerialQueue billingQueue = this.billing.getBean(SerialQueue.class);
		Importer ordersImporter = this.orders.getBean(Importer.class);
		Importer billingImporter = this.billing.getBean(Importer.class);
		for (int i = 0; i < 10; i++) {
			ordersQueue.submit("imports", "tenant-1", "orders-" + i);
			billingQueue.submit("imports", "tenant-1", "billing-" + i);
		}
		String dead = ordersQueue.submit("imports", "tenant-1", "fail");
		await().atMost(Duration.ofSeconds(30)).until(() -> ordersImporter.received().size() == 11
				&& billingImporter.received().size() == 10 && ordersQueue.stats("imports").dead() == 1);
		assertThat(ordersImporter.received()).allMatch((payload) -> payload.startsWith("orders-") || payload.equals("fail"));
		assertThat(billingImporter.received()).allMatch((payload) -> payload.startsWith("billing-"));

		// the other application cannot see, redrive or discard the dead task, by API or actuator
		assertThat(billingQueue.stats("imports").dead()).isZero();
		assertThat(billingQueue.deadLetters("imports", 10)).isEmpty();
		assertThat(billingQueue.task("imports", dead)).isEmpty();
		assertThat(get(this.billing, "/actuator/lockstep/queues/imports")).contains("\"deadLetters\":[]").doesNotContain(dead);
		assertThat(send(this.billing, "POST", "/actuator/lockstep/queues/imports/redrive/" + dead))
			.contains("\"redriven\":false");
		assertThat(send(this.billing, "DELETE", "/actuator/lockstep/queues/imports/dead/" + dead))
			.contains("\"discarded\":false");
		assertThat(billingQueue.redrive("imports", dead)).isFalse();
		assertThat(billingQueue.discard("imports", dead)).isFalse();
		assertThat(ordersQueue.task("imports", dead)).get().extracting(SerialTask::state).isEqualTo(SerialTask.State.DEAD);
		assertThat(get(this.orders, "/actuator/lockstep/queues/imports")).contains(dead);

		// jobs: the same job name runs in both at once, and each ledger holds only its own runs
		Nightly ordersJob = this.orders.getBean(Nightly.class);
		Nightly billingJob = this.billing.getBean(Nightly.class);
		CountDownLatch hold = new CountDownLatch(1);
		ordersJob.hold(hold);
		Thread ordersRun = new Thread(ordersJob::run);
		ordersRun.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> ordersJob.started() == 1);
		billingJob.run();
		billingJob.run();
		assertThat(billingJob.started()).as("billing's job ran while orders' held its guard").isEqualTo(2);
		hold.countDown();
		ordersRun.join(10_000);
		JobGuardRegistry ordersJobs = this.orders.getBean(JobGuardRegistry.class);
		JobGuardRegistry billingJobs = this.billing.getBean(JobGuardRegistry.class);
		assertThat(ordersJobs.history("nightly")).hasSize(1).extracting(JobRun::instance).containsOnly("orders-node");
		assertThat(billingJobs.history("nightly")).hasSize(2).extracting(JobRun::instance).containsOnly("billing-node");
		assertThat(get(this.billing, "/actuator/lockstep/jobs/nightly")).contains("billing-node").doesNotContain("orders-node");

		// counters: the same key counts apart
		assertThat(this.orders.getBean(Counters.class).tryIncrement("seats", 3, 3)).isTrue();
		assertThat(this.billing.getBean(Counters.class).current("seats")).isZero();

		// and in Redis, each application's keys are under its own prefix only
		StringRedisTemplate redis = this.orders.getBean(StringRedisTemplate.class);
		assertThat(redis.keys("orders-" + run + ":*")).isNotEmpty();
		assertThat(redis.keys("billing-" + run + ":*")).isNotEmpty();
		assertThat(redis.keys("*" + run + "*")).allMatch((key) -> key.startsWith("orders-" + run + ":")
				|| key.startsWith("billing-" + run + ":"));
	}

	private ConfigurableApplicationContext start(String prefix, String instance) {
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.properties("server.port=0", "spring.data.redis.host=" + TestRedis.standalone().host(),
					"spring.data.redis.port=" + TestRedis.standalone().port(), "lockstep.key-prefix=" + prefix,
					"lockstep.instance-id=" + instance,
					"lockstep.queue.queues.imports.max-attempts=1", "lockstep.queue.shutdown-timeout=0s",
					"management.endpoints.web.exposure.include=lockstep", "management.endpoint.lockstep.access=unrestricted")
			.run();
	}

	private String get(ConfigurableApplicationContext context, String path) throws Exception {
		return send(context, "GET", path);
	}

	private String send(ConfigurableApplicationContext context, String method, String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(200);
		return response.body();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		Importer importer() {
			return new Importer();
		}

		@Bean
		Nightly nightly() {
			return new Nightly();
		}

	}

	static class Importer {

		private final Queue<String> received = new ConcurrentLinkedQueue<>();

		@SerialQueueListener(queue = "imports")
		public void run(String payload) {
			this.received.add(payload);
			if (payload.equals("fail")) {
				throw new IllegalStateException("import refused");
			}
		}

		public List<String> received() {
			return List.copyOf(this.received);
		}

	}

	static class Nightly {

		private final java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();

		private volatile CountDownLatch hold;

		public int started() {
			return this.started.get();
		}

		public void hold(CountDownLatch hold) {
			this.hold = hold;
		}

		@JobGuard(name = "nightly", lockAtMostFor = "1m")
		public void run() {
			this.started.incrementAndGet();
			CountDownLatch latch = this.hold;
			if (latch != null) {
				try {
					latch.await(20, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

	}

}
