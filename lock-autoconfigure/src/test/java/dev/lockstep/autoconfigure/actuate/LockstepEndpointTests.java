package dev.lockstep.autoconfigure.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.lockstep.Counters;
import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialTask;
import dev.lockstep.annotation.JobGuard;
import dev.lockstep.annotation.RateLimited;
import dev.lockstep.annotation.SerialQueueListener;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.RedisServer;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The {@code lockstep} endpoint and health contributor, over HTTP, on a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockstepEndpointTests {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ConfigurableApplicationContext context;

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void endpointShowsThisInstanceAndTheJobsItGuardsWithTheirRuns() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"management.endpoints.web.exposure.include=lockstep,health");
		this.context.getBean(NightlyJob.class).run();

		Response root = get("/actuator/lockstep");
		assertThat(root.status()).isEqualTo(200);
		String instance = ((RedisLockService) this.context.getBean(LockService.class)).getInstanceId();
		assertThat(root.body()).contains("\"instance\":\"" + instance + "\"").contains("\"jobGuardInstance\":\"node-a\"")
			.contains("\"redisMode\":\"standalone\"")
			.contains("\"jobs\":[\"nightly-report\"]");

		Response jobs = get("/actuator/lockstep/jobs");
		assertThat(jobs.status()).isEqualTo(200);
		assertThat(jobs.body()).contains("\"name\":\"nightly-report\"").contains("NightlyJob.run")
			.contains("\"instance\":\"node-a\"");

		// the instance announces itself for its jobs as it starts, on a thread of its own
		await().atMost(Duration.ofSeconds(10))
			.until(() -> get("/actuator/lockstep/jobs/nightly-report").body().contains("\"instance\":\"node-a\",\"lastSeen\""));
		Response job = get("/actuator/lockstep/jobs/nightly-report");
		assertThat(job.status()).isEqualTo(200);
		assertThat(job.body()).contains("\"history\":[{").contains("\"succeeded\":true")
			.contains("\"members\":[{\"job\":\"nightly-report\",\"instance\":\"node-a\"")
			.contains("\"elections\":[]");

		assertThat(get("/actuator/lockstep/nothing-here").status()).isEqualTo(404);

		// read-only by default: Boot maps neither redrive (POST) nor discard (DELETE), so the web layer
		// answers 405 where, with access=unrestricted, the same calls answer 200 (see the queue test below)
		Response redrive = post("/actuator/lockstep/queues/imports/redrive/no-such-task");
		assertThat(redrive.status()).as(redrive.body()).isEqualTo(405);
		Response discard = delete("/actuator/lockstep/queues/imports/dead/no-such-task");
		assertThat(discard.status()).as(discard.body()).isEqualTo(405);
	}

	@Test
	void endpointShowsTheQueuesThisInstanceRunsTheirCountsAndDeadLetters() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"management.endpoints.web.exposure.include=lockstep", "management.endpoint.lockstep.access=unrestricted",
				"lockstep.queue.queues.imports.max-attempts=1", "lockstep.queue.queues.reports.max-attempts=2");
		SerialQueue queue = this.context.getBean(SerialQueue.class);
		String failing = queue.submit("imports", "tenant-1:orders", "fail");
		await().atMost(Duration.ofSeconds(20)).until(() -> queue.stats("imports").dead() == 1);

		assertThat(get("/actuator/lockstep").body()).contains("\"queues\":[\"imports\"]");
		assertThat(get("/actuator/lockstep/queues").body())
			.contains("{\"name\":\"imports\",\"stats\":{\"queued\":0,\"running\":0,\"dead\":1,\"groupsWaiting\":0}}");
		Response detail = get("/actuator/lockstep/queues/imports");
		assertThat(detail.status()).isEqualTo(200);
		assertThat(detail.body()).contains("\"listenedHere\":true").contains("\"maxAttempts\":1")
			.contains("\"id\":\"" + failing + "\"")
			.contains("\"state\":\"DEAD\"")
			.contains("java.lang.IllegalStateException: import refused");
		assertThat(get("/actuator/lockstep/queues/reports").body()).contains("\"listenedHere\":false")
			.contains("\"deadLetters\":[]");
		// a queue nobody listens to here, without settings of its own and without tasks: a typo, not an idle queue
		assertThat(get("/actuator/lockstep/queues/imprts").status()).isEqualTo(404);
		assertThat(get("/actuator/lockstep/jobs/no-such-job").status()).isEqualTo(404);

		// a redrive through the endpoint (POST): the task runs again, and is dead again
		Response redriven = post("/actuator/lockstep/queues/imports/redrive/" + failing);
		assertThat(redriven.status()).isEqualTo(200);
		assertThat(redriven.body()).contains("\"redriven\":true");
		await().atMost(Duration.ofSeconds(20)).until(() -> queue.task("imports", failing).orElseThrow().attempt() == 1
				&& queue.stats("imports").dead() == 1);
		assertThat(post("/actuator/lockstep/queues/imports/redrive/no-such-task").body()).contains("\"redriven\":false");
		// any other path of four parts changes nothing (the operation returns nothing, which Boot answers
		// with 204): the task is still dead, and is discarded below
		assertThat(post("/actuator/lockstep/queues/imports/dead/" + failing).status()).isEqualTo(204);
		assertThat(post("/actuator/lockstep/locks/imports/redrive/" + failing).status()).isEqualTo(204);
		assertThat(delete("/actuator/lockstep/queues/imports/redrive/" + failing).status()).isEqualTo(204);
		assertThat(delete("/actuator/lockstep/jobs/imports/dead/" + failing).status()).isEqualTo(204);
		assertThat(queue.task("imports", failing).orElseThrow().state()).isEqualTo(SerialTask.State.DEAD);

		// a discard through the endpoint (DELETE): the dead task is gone, payload and all
		Response discarded = delete("/actuator/lockstep/queues/imports/dead/" + failing);
		assertThat(discarded.status()).isEqualTo(200);
		assertThat(discarded.body()).contains("\"discarded\":true");
		assertThat(queue.task("imports", failing)).isEmpty();
		assertThat(queue.stats("imports").dead()).isZero();
		assertThat(get("/actuator/lockstep/queues/imports").body()).contains("\"deadLetters\":[]");
		assertThat(delete("/actuator/lockstep/queues/imports/dead/" + failing).body()).contains("\"discarded\":false");

		// the busiest groups: a group whose task runs, and groups waiting behind their running task
		Importer importer = this.context.getBean(Importer.class);
		importer.hold.set(new CountDownLatch(1));
		String held = queue.submit("imports", "tenant-2:orders", "hold");
		await().atMost(Duration.ofSeconds(20)).until(() -> queue.stats("imports").running() == 1);
		String queued = queue.submit("imports", "tenant-2:orders", "next");
		queue.submit("imports", "tenant-2:orders", "next");
		assertThat(get("/actuator/lockstep/queues/imports").body())
			.contains("\"busiestGroups\":[{\"group\":\"tenant-2:orders\",\"queued\":2,\"running\":true}]");
		// only a dead task can be discarded: a running one and a queued one stay
		assertThat(queue.deadLetters("imports", 10)).isEmpty();
		assertThat(delete("/actuator/lockstep/queues/imports/dead/" + held).body()).contains("\"discarded\":false");
		assertThat(delete("/actuator/lockstep/queues/imports/dead/" + queued).body()).contains("\"discarded\":false");
		assertThat(queue.task("imports", held).orElseThrow().state()).isEqualTo(SerialTask.State.RUNNING);
		assertThat(queue.task("imports", queued).orElseThrow().state()).isEqualTo(SerialTask.State.QUEUED);
		importer.hold.get().countDown();
		await().atMost(Duration.ofSeconds(20)).until(() -> queue.stats("imports").queued() == 0
				&& queue.stats("imports").running() == 0);
	}

	@Test
	void endpointShowsTheLocksThisInstanceHoldsItsWaitingCallsAndAnyKeyFromRedis() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"management.endpoints.web.exposure.include=lockstep");
		RedisLockService locks = (RedisLockService) this.context.getBean(LockService.class);
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
		try (dev.lockstep.LockHandle held = locks.acquire("tenant-7:invoice-42", Duration.ZERO)) {
			java.util.concurrent.CountDownLatch release = new CountDownLatch(1);
			java.util.concurrent.Future<?> waiter = threads.submit(() -> {
				// another instance's call, so that it queues behind this instance's hold
				try (dev.lockstep.LockHandle second = other().acquire("tenant-7:invoice-42", Duration.ofSeconds(30))) {
					release.await();
				}
				return null;
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> locks.keyState("tenant-7:invoice-42").waitersInAll() == 1);

			Response mine = get("/actuator/lockstep/locks");
			assertThat(mine.status()).isEqualTo(200);
			assertThat(mine.body()).contains("\"key\":\"tenant-7:invoice-42\"")
				.contains("\"fencingToken\":" + held.fencingToken())
				.contains("\"thread\":\"" + Thread.currentThread().getName() + "\"")
				.contains("\"leaseLeft\":")
				.contains("\"waiting\":[]");

			Response key = get("/actuator/lockstep/locks/tenant-7:invoice-42");
			assertThat(key.status()).isEqualTo(200);
			assertThat(key.body()).contains("\"holderInstance\":\"" + locks.getInstanceId() + "\"")
				.contains("\"fencingToken\":" + held.fencingToken())
				.contains("\"waitersInAll\":1")
				.contains("\"waiters\":[\"" + other().getInstanceId() + ":");
			release.countDown();
			held.close();
			waiter.get(30, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdownNow();
			if (this.other != null) {
				this.other.stop();
			}
		}
		Response free = get("/actuator/lockstep/locks/tenant-7:invoice-42");
		assertThat(free.body()).contains("\"holderInstance\":null").contains("\"waitersInAll\":0");
	}

	@Test
	void endpointShowsThePermitsThisInstanceHoldsAndAnyKeysPermitsFromRedis() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"management.endpoints.web.exposure.include=lockstep");
		RedisLockService locks = (RedisLockService) this.context.getBean(LockService.class);
		try (dev.lockstep.LockHandle first = locks.acquirePermit("exports", 3, Duration.ZERO);
				dev.lockstep.LockHandle second = locks.acquirePermit("exports", 3, Duration.ZERO)) {
			assertThat(get("/actuator/lockstep/locks").body()).contains("\"key\":\"exports\"")
				.contains("\"fencingToken\":" + first.fencingToken())
				.contains("\"fencingToken\":" + second.fencingToken())
				.contains("\"permits\":3");
			Response permits = get("/actuator/lockstep/permits/exports");
			assertThat(permits.status()).isEqualTo(200);
			assertThat(permits.body()).contains("\"held\":2").contains("\"waiting\":0");
		}
		// releases are sent without waiting for their reply
		await().atMost(Duration.ofSeconds(10))
			.until(() -> get("/actuator/lockstep/permits/exports").body().contains("\"held\":0"));
	}

	@Test
	void waitingCallsShowTheirPlaceInTheQueue() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"management.endpoints.web.exposure.include=lockstep");
		RedisLockService locks = (RedisLockService) this.context.getBean(LockService.class);
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
		try (dev.lockstep.LockHandle held = other().acquire("ledger", Duration.ZERO)) {
			java.util.concurrent.Future<?> waiter = threads.submit(() -> {
				locks.acquire("ledger", Duration.ofSeconds(30)).close();
				return null;
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> !locks.waitingCalls().isEmpty());
			Response mine = get("/actuator/lockstep/locks");
			assertThat(mine.body()).contains("\"held\":[]").contains("\"waiting\":[{\"key\":\"ledger\"")
				.contains("\"position\":1").contains("\"waitingSince\":");
			held.close();
			waiter.get(30, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdownNow();
			this.other.stop();
		}
	}

	private RedisLockService other;

	/** A second instance on the same Redis and key prefix. */
	private RedisLockService other() {
		if (this.other == null) {
			RedisLockService service = new RedisLockService(this.context.getBean(RedisConnectionFactory.class));
			service.setKeyPrefix(((RedisLockService) this.context.getBean(LockService.class)).getKeyPrefix());
			service.start();
			this.other = service;
		}
		return this.other;
	}

	@Test
	void endpointIsOffTheWebUntilExposed() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port());
		assertThat(get("/actuator/lockstep").status()).isEqualTo(404);
		assertThat(this.context.getBeansOfType(LockstepEndpoint.class)).isEmpty();
		assertThat(this.context.getBeansOfType(LockService.class)).hasSize(1);
	}

	/** What the README and the sample's README say: a fresh application hides the contributor's path. */
	@Test
	void theContributorsPathAnswers404UntilShowComponentsOrShowDetailsIsSet() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"management.endpoints.web.exposure.include=health");
		assertThat(get("/actuator/health").status()).as("the health endpoint itself").isEqualTo(200);
		assertThat(get("/actuator/health/lockstep").status()).as("fresh application").isEqualTo(404);
		for (String shown : new String[] { "management.endpoint.health.show-components=always",
				"management.endpoint.health.show-details=always" }) {
			this.context.close();
			start(TestRedis.standalone().host(), TestRedis.standalone().port(),
					"management.endpoints.web.exposure.include=health", shown);
			Response health = get("/actuator/health/lockstep");
			assertThat(health.status()).as(shown).isEqualTo(200);
			assertThat(health.body()).as(shown).contains("\"status\":\"UP\"");
		}
	}

	@Test
	void healthReportsLostLocksWhileUpAndGoesDownWhenRedisStops() throws Exception {
		try (RedisServer redis = RedisServer.start()) {
			start(redis.host(), redis.port(), "management.endpoints.web.exposure.include=health",
					"management.endpoint.health.show-components=always", "management.endpoint.health.show-details=always",
					"lockstep.lock.lease-time=3s");
			Response up = get("/actuator/health/lockstep");
			assertThat(up.status()).isEqualTo(200);
			assertThat(up.body()).contains("\"status\":\"UP\"").contains("\"locksLost\":0");

			LockHandle handle = this.context.getBean(LockService.class).acquire("report:42", Duration.ZERO);
			redis.call("FLUSHALL");
			await().atMost(Duration.ofSeconds(20)).until(() -> !handle.isHeld());
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				Response afterLoss = get("/actuator/health/lockstep");
				assertThat(afterLoss.status()).isEqualTo(200);
				assertThat(afterLoss.body()).contains("\"status\":\"UP\"").contains("\"locksLost\":1")
					.contains("report:42");
			});
			handle.close();

			redis.kill();
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				Response down = get("/actuator/health/lockstep");
				assertThat(down.status()).isEqualTo(503);
				assertThat(down.body()).contains("\"status\":\"DOWN\"");
			});
		}
	}

	@Test
	void healthAnswersDownWithinTheCommandTimeoutWhileRedisRefusesConnections() throws Exception {
		try (RedisServer redis = RedisServer.start()) {
			// Lettuce's own timeout as Boot leaves it, a minute: the old probe answered DOWN after it
			start(redis.host(), redis.port(), "management.endpoints.web.exposure.include=health",
					"management.endpoint.health.show-components=always", "management.endpoint.health.show-details=always",
					"spring.data.redis.timeout=60s", "lockstep.command-timeout=5s");
			assertThat(get("/actuator/health/lockstep").status()).isEqualTo(200);
			redis.kill();
			// Lettuce hears of the closed socket at once; the pause is not the bound under test
			Thread.sleep(300);
			for (int i = 0; i < 3; i++) {
				long start = System.nanoTime();
				Response down = get("/actuator/health/lockstep");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to DOWN").isLessThan(Duration.ofSeconds(2));
				assertThat(down.status()).isEqualTo(503);
				assertThat(down.body()).contains("\"status\":\"DOWN\"")
					.contains("\"redis\":\"Redis at " + redis.host() + ":" + redis.port())
					.contains("the connection is down");
			}
		}
	}

	@Test
	void healthReportsRenewalsThatCameLateWhileTheLockIsStillHeld() throws Exception {
		try (FaultProxy proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port())) {
			// renewals go out every 2s with about 4s of the 6s lease left; replies 2.5s late confirm them with under 2s left
			start(proxy.host(), proxy.port(), "management.endpoints.web.exposure.include=health",
					"management.endpoint.health.show-components=always", "management.endpoint.health.show-details=always",
					"lockstep.lock.lease-time=6s", "spring.data.redis.timeout=10s");
			assertThat(get("/actuator/health/lockstep").body()).contains("\"renewalsLate\":0");
			try (LockHandle handle = this.context.getBean(LockService.class).acquire("report:7", Duration.ZERO)) {
				proxy.latency(Duration.ZERO, Duration.ofMillis(2500));
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					Response late = get("/actuator/health/lockstep");
					assertThat(late.status()).isEqualTo(200);
					assertThat(late.body()).contains("\"status\":\"UP\"").doesNotContain("\"renewalsLate\":0")
						.contains("\"lastRenewalLate\":{\"key\":\"report:7\"").contains("\"locksLost\":0");
				});
				assertThat(handle.isHeld()).as("still held: late, not lost").isTrue();
				proxy.heal();
			}
		}
	}

	@Test
	void endpointAndHealthStayAwayWithoutActuator() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
					JobGuardAutoConfiguration.class, LockstepEndpointAutoConfiguration.class,
					LockstepHealthAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
					"spring.data.redis.port=" + TestRedis.standalone().port(), "lockstep.key-prefix=" + prefix())
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate", "org.springframework.boot.health"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockService.class)
				.doesNotHaveBean(LockstepEndpoint.class)
				.doesNotHaveBean(LockstepHealthIndicator.class));
	}

	@Test
	void endpointShowsTheRateLimitKeysDecidedHereTheirBucketsInRedisAndCounters() throws Exception {
		start(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"management.endpoints.web.exposure.include=lockstep");
		Search search = this.context.getBean(Search.class);
		for (int i = 0; i < 3; i++) {
			search.search("tenant-7");
		}
		this.context.getBean(Counters.class).tryIncrement("signup:launch", 3, 100);

		Response keys = get("/actuator/lockstep/ratelimits");
		assertThat(keys.status()).isEqualTo(200);
		assertThat(keys.body()).contains("\"key\":\"search:tenant-7\"").contains("\"limit\":5")
			.contains("\"lastAllowed\":true");
		Response key = get("/actuator/lockstep/ratelimits/search:tenant-7");
		assertThat(key.status()).isEqualTo(200);
		assertThat(key.body()).contains("\"remaining\":2").contains("\"fullIn\"");
		Response unknown = get("/actuator/lockstep/ratelimits/search:nobody");
		assertThat(unknown.body()).as("a key never called: full, limit unknown here").contains("\"remaining\":null")
			.contains("\"lastHere\":null");
		Response counter = get("/actuator/lockstep/counters/signup:launch");
		assertThat(counter.status()).isEqualTo(200);
		assertThat(counter.body()).contains("\"current\":3");
	}

	@Test
	void aKeyOrNameLockstepRefusesAnswers400NamingWhy() throws Exception {
		// the reason is in the body as Boot's error handling allows: here, always
		start(TestRedis.standalone().host(), TestRedis.standalone().port(),
				"management.endpoints.web.exposure.include=lockstep", "management.endpoint.lockstep.access=unrestricted",
				"spring.web.error.include-message=always");
		String longKey = "k".repeat(1100);
		for (String part : List.of("locks", "permits")) {
			Response tooLong = get("/actuator/lockstep/" + part + "/" + longKey);
			assertThat(tooLong.status()).as(part + ": " + tooLong.body()).isEqualTo(400);
			assertThat(tooLong.body()).contains("1100 bytes", "1024");
		}
		// braces would move a key to another hash slot: refused before Redis is called
		for (String path : List.of("queues/a%7Bb", "ratelimits/a%7Bb", "counters/a%7Bb")) {
			Response braces = get("/actuator/lockstep/" + path);
			assertThat(braces.status()).as(path + ": " + braces.body()).isEqualTo(400);
			assertThat(braces.body()).contains("'a{b'");
		}
		assertThat(post("/actuator/lockstep/queues/a%7Bb/redrive/t-1").status()).isEqualTo(400);
		assertThat(delete("/actuator/lockstep/queues/a%7Bb/dead/t-1").status()).isEqualTo(400);
		// a queue name goes into every key of the queue: bounded as lock keys are
		String longQueue = "q".repeat(1100);
		for (Response tooLong : List.of(get("/actuator/lockstep/queues/" + longQueue),
				post("/actuator/lockstep/queues/" + longQueue + "/redrive/t-1"),
				delete("/actuator/lockstep/queues/" + longQueue + "/dead/t-1"))) {
			assertThat(tooLong.status()).as(tooLong.body()).isEqualTo(400);
			assertThat(tooLong.body()).contains("Queue name 'qqq", "1100 bytes", "1024");
		}
		// the endpoint still answers what is fine
		assertThat(get("/actuator/lockstep/locks/fine").status()).isEqualTo(200);
	}

	private void start(String host, int port, String... properties) {
		String[] all = new String[properties.length + 6];
		all[0] = "server.port=0";
		all[1] = "spring.data.redis.host=" + host;
		all[2] = "spring.data.redis.port=" + port;
		all[3] = "lockstep.key-prefix=" + prefix();
		all[4] = "lockstep.job-guard.instance-id=node-a";
		all[5] = "spring.data.redis.timeout=2s";
		System.arraycopy(properties, 0, all, 6, properties.length);
		this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET).properties(all).run();
	}

	private Response post(String path) throws Exception {
		return send("POST", path);
	}

	private Response delete(String path) throws Exception {
		return send("DELETE", path);
	}

	private Response get(String path) throws Exception {
		return send("GET", path);
	}

	private Response send(String method, String path) throws Exception {
		int port = ((WebServerApplicationContext) this.context).getWebServer().getPort();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		return new Response(response.statusCode(), response.body());
	}

	private static String prefix() {
		return "e" + UUID.randomUUID().toString().substring(0, 8) + ":";
	}

	record Response(int status, String body) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		NightlyJob nightlyJob() {
			return new NightlyJob();
		}

		@Bean
		Importer importer() {
			return new Importer();
		}

		@Bean
		Search search() {
			return new Search();
		}

	}

	static class Search {

		@RateLimited(key = "#tenant", limit = 5, per = "1m", name = "search")
		public void search(String tenant) {
		}

	}

	static class Importer {

		final AtomicReference<CountDownLatch> hold = new AtomicReference<>();

		@SerialQueueListener(queue = "imports")
		void run(String request) throws InterruptedException {
			if (request.equals("fail")) {
				throw new IllegalStateException("import refused");
			}
			if (request.equals("hold") && this.hold.get() != null) {
				this.hold.get().await(30, TimeUnit.SECONDS);
			}
		}

	}

	static class NightlyJob {

		@JobGuard(name = "nightly-report")
		public void run() {
		}

	}

}
