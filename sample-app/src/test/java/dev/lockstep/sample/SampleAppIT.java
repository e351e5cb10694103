package dev.lockstep.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

import dev.lockstep.sample.SampleHttp.Reply;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The packaged sample app as two real processes on one Redis and one H2 directory, driven over
 * HTTP: what the field reports needed, checked across processes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class SampleAppIT {

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

	private static final Duration AWAIT_TIMEOUT = Duration.ofSeconds(30);

	/** The group wait the instances run with: long enough for the queue of the order test, short enough to see a 409. */
	private static final Duration GROUP_WAIT = Duration.ofSeconds(6);

	private static final Duration QUEUE_LEASE = Duration.ofSeconds(3);

	private RedisServer redis;

	private Path dataDir;

	private SampleInstance a;

	private SampleInstance b;

	private long longestQueueSeen;

	/** The instance still running after the kill test. */
	private SampleInstance survivor;

	@BeforeAll
	void startTwoInstances() throws IOException {
		String jarPath = System.getProperty("sample.jar");
		if (jarPath == null || !Files.isRegularFile(Path.of(jarPath))) {
			fail("System property sample.jar must name the packaged app (the POM sets it for failsafe), was " + jarPath);
		}
		this.redis = RedisServer.start();
		this.dataDir = Files.createTempDirectory("lockstep-sample-it-");
		List<String> args = List.of("--spring.data.redis.host=" + this.redis.host(),
				"--spring.data.redis.port=" + this.redis.port(), "--sample.data-dir=" + this.dataDir,
				"--lockstep.serial-group.wait-time=" + GROUP_WAIT.toSeconds() + "s",
				// A queued import whose instance is killed runs again on the other within this lease.
				"--lockstep.queue.lease-time=" + QUEUE_LEASE.toSeconds() + "s",
				// Generous: many deliveries of one pin queue behind each other on a busy machine.
				"--lockstep.lock.wait-time=30s", "--lockstep.command-timeout=2s", "--sample.push.cron=*/2 * * * * *");
		this.a = SampleInstance.start(Path.of(jarPath), "a", args);
		this.b = SampleInstance.start(Path.of(jarPath), "b", args);
		this.a.awaitStarted(STARTUP_TIMEOUT);
		this.b.awaitStarted(STARTUP_TIMEOUT);
	}

	@AfterAll
	void stop() throws IOException {
		Path logs = Path.of(System.getProperty("sample.logs", "target"));
		for (SampleInstance instance : new SampleInstance[] { this.a, this.b }) {
			if (instance != null) {
				instance.stop(logs);
			}
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
	@Order(1)
	void concurrentDuplicateDeliveriesOnBothInstancesCreateOneUserPerPin() {
		List<String> pins = List.of("pin-1001", "pin-1002", "pin-1003", "pin-1004");
		int deliveriesPerPin = 10;
		Map<String, List<CompletableFuture<Reply>>> replies = new HashMap<>();
		for (int delivery = 0; delivery < deliveriesPerPin; delivery++) {
			for (String pin : pins) {
				SampleInstance instance = (delivery % 2 == 0) ? this.a : this.b;
				replies.computeIfAbsent(pin, (key) -> new ArrayList<>())
					.add(SampleHttp.postAsync(instance.uri("/users"), Map.of("pin", pin, "name", "User " + pin)));
			}
		}
		Set<String> handledBy = new HashSet<>();
		for (String pin : pins) {
			List<Reply> answers = replies.get(pin).stream().map(SampleHttp::await).toList();
			assertThat(answers).as("answers for %s", pin).allSatisfy((reply) -> assertThat(reply.status()).isIn(200, 201));
			List<JsonNode> created = answers.stream().map(Reply::json).filter((json) -> json.get("created").asBoolean()).toList();
			assertThat(created).as("deliveries of %s that created the user: %s", pin, answers).hasSize(1);
			answers.forEach((reply) -> handledBy.add(reply.json().get("handledBy").asString()));

			JsonNode rows = SampleHttp.get(this.b.uri("/users?pin=" + pin)).json();
			assertThat(rows).as("rows with pin %s", pin).hasSize(1);
			assertThat(rows.get(0).get("createdBy").asString()).isEqualTo(created.get(0).get("handledBy").asString());
		}
		assertThat(handledBy).as("instances that handled deliveries").containsExactlyInAnyOrder("a", "b");
	}

	/** A later delivery with a new name renames the user through a fenced write (JdbcFencing). */
	@Test
	@Order(1)
	void aLaterDeliveryWithANewNameRenamesTheUserUnderANewerLock() {
		assertThat(SampleHttp.post(this.a.uri("/users"), Map.of("pin", "pin-1101", "name", "Old Name")).status()).isEqualTo(201);
		Reply renamed = SampleHttp.post(this.b.uri("/users"), Map.of("pin", "pin-1101", "name", "New Name"));
		assertThat(renamed.status()).isEqualTo(200);
		assertThat(SampleHttp.get(this.a.uri("/users/pin-1101")).json().get("name").asString()).isEqualTo("New Name");
		assertThat(SampleHttp.get(this.a.uri("/users?pin=pin-1101")).json()).hasSize(1);
	}

	@Test
	@Order(2)
	void aGroupRunsInArrivalOrderOneAtATimeWhileAnotherGroupRunsAlongside() {
		Group orders = new Group("acme", "orders");
		Group invoices = new Group("acme", "invoices");
		List<CompletableFuture<Reply>> orderReplies = new ArrayList<>();
		// A long first request holds the group, so that the next ones queue behind it.
		orderReplies.add(importAsync(this.a, orders, "orders-1", 2500));
		awaitJoined(orders, 1);
		CompletableFuture<Reply> invoiceReply = importAsync(this.b, invoices, "invoices-1", 300);
		for (int k = 2; k <= 5; k++) {
			orderReplies.add(importAsync((k % 2 == 0) ? this.b : this.a, orders, "orders-" + k, 150));
			// Send the next request only once this one is in the group's queue: that fixes the arrival order.
			awaitJoined(orders, k);
		}
		assertThat(this.longestQueueSeen).as("requests seen waiting in the queue of %s", orders).isPositive();
		orderReplies.forEach((reply) -> assertThat(SampleHttp.await(reply).status()).as("orders reply").isEqualTo(200));
		assertThat(SampleHttp.await(invoiceReply).status()).as("invoices reply").isEqualTo(200);

		List<JsonNode> runs = runs(orders);
		assertThat(runs).extracting((run) -> run.get("requestId").asString())
			.containsExactly("orders-1", "orders-2", "orders-3", "orders-4", "orders-5");
		assertThat(runs).extracting((run) -> run.get("instanceId").asString()).contains("a", "b");
		for (int i = 1; i < runs.size(); i++) {
			assertThat(instant(runs.get(i), "startedAt")).as("start of %s after the end of %s", runs.get(i), runs.get(i - 1))
				.isAfterOrEqualTo(instant(runs.get(i - 1), "finishedAt"));
		}
		JsonNode first = runs.get(0);
		JsonNode invoice = runs(invoices).get(0);
		assertThat(instant(invoice, "startedAt")).as("another group started while %s ran: %s", first, invoice)
			.isBefore(instant(first, "finishedAt"));
		assertThat(instant(first, "startedAt")).isBefore(instant(invoice, "finishedAt"));
	}

	@Test
	@Order(3)
	void aCallWhoseTurnDoesNotComeInTimeGets409AndDoesNotRun() {
		Group export = new Group("acme", "export");
		long holdMillis = GROUP_WAIT.toMillis() + 4000;
		CompletableFuture<Reply> holder = importAsync(this.a, export, "export-1", holdMillis);
		awaitJoined(export, 1);

		Reply refused = SampleHttp.await(importAsync(this.b, export, "export-2", 0));

		assertProblem(refused, 409, "Busy elsewhere");
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(refused.json().get("detail").asString()).contains("acme:export");
		assertThat(SampleHttp.await(holder).status()).isEqualTo(200);
		assertThat(runs(export)).extracting((run) -> run.get("requestId").asString()).containsExactly("export-1");
	}

	@Test
	@Order(4)
	void queuedImportsAnswer202AtOnceAndRunOnBothInstancesOneAtATimeInOrderPerGroup() {
		int groups = 8;
		int perGroup = 4;
		Map<String, List<String>> taskIds = new HashMap<>();
		for (int k = 1; k <= perGroup; k++) {
			for (int g = 1; g <= groups; g++) {
				Group group = new Group("queued", "entity-" + g);
				Reply reply = submit(this.a, group, group.entityCode() + "-" + k, 300);
				assertThat(reply.status()).as("reply to %s", reply).isEqualTo(202);
				String taskId = reply.json().get("taskId").asString();
				assertThat(reply.headers().firstValue("Location")).hasValueSatisfying((location) -> assertThat(location)
					.endsWith("/imports/" + taskId));
				taskIds.computeIfAbsent(group.toString(), (key) -> new ArrayList<>()).add(taskId);
			}
		}
		// the broker delivers one message twice: the same task
		Reply again = submit(this.b, new Group("queued", "entity-1"), "entity-1-1", 300);
		assertThat(again.status()).isEqualTo(202);
		assertThat(again.json().get("taskId").asString()).isEqualTo(taskIds.get("queued:entity-1").get(0));

		Set<String> instances = new HashSet<>();
		for (Map.Entry<String, List<String>> group : taskIds.entrySet()) {
			List<JsonNode> runs = new ArrayList<>();
			for (String taskId : group.getValue()) {
				await("import " + taskId + " done", () -> state(this.b, taskId).equals("DONE"));
				JsonNode status = SampleHttp.get(this.b.uri("/imports/" + taskId)).json();
				assertThat(status.get("attempt").asInt()).isEqualTo(1);
				assertThat(status.get("runs")).hasSize(1);
				runs.add(status.get("runs").get(0));
			}
			for (int i = 1; i < runs.size(); i++) {
				assertThat(instant(runs.get(i), "startedAt")).as("start of %s after the end of %s", runs.get(i), runs.get(i - 1))
					.isAfterOrEqualTo(instant(runs.get(i - 1), "finishedAt"));
			}
			runs.forEach((run) -> instances.add(run.get("instanceId").asString()));
		}
		assertThat(instances).as("instances that ran imports submitted to a").containsExactlyInAnyOrder("a", "b");
		assertProblem(SampleHttp.get(this.a.uri("/imports/no-such-task")), 404, "Not found");
	}

	@Test
	@Order(4)
	void aBurstForOneGroupHoldsUpNeitherOtherGroupsNorOtherEndpoints() {
		Group hot = new Group("burst", "hot");
		List<CompletableFuture<Reply>> burst = new ArrayList<>();
		for (int k = 1; k <= 500; k++) {
			burst.add(SampleHttp.postAsync(((k % 2 == 0) ? this.a : this.b).uri("/imports"), Map.of("requestId", "hot-" + k,
					"tenantId", hot.tenantId(), "entityCode", hot.entityCode(), "workMillis", 20)));
		}
		List<Reply> accepted = burst.stream().map(SampleHttp::await).toList();
		assertThat(accepted).allSatisfy((reply) -> assertThat(reply.status()).isEqualTo(202));

		Reply cold = submit(this.a, new Group("burst", "cold"), "cold-1", 10);
		String coldId = cold.json().get("taskId").asString();
		await("the other group's import done", () -> state(this.a, coldId).equals("DONE"));
		// the hot group drains one import at a time (500 x 20 ms): most of it is still queued
		JsonNode queue = SampleHttp.get(this.b.uri("/actuator/lockstep/queues/imports")).json();
		assertThat(queue.get("stats").get("queued").asLong()).as("imports still queued: %s", queue).isGreaterThan(100);
		assertThat(SampleHttp.get(this.b.uri("/users")).status()).isEqualTo(200);
	}

	@Test
	@Order(5)
	void anUnreadableBodyIsAnsweredWithTheFieldAtFault() {
		assertInvalid(SampleHttp.post(this.a.uri("/imports"), "{}"), "workMillis: required");
		assertInvalid(SampleHttp.post(this.b.uri("/imports"), Map.of("requestId", "r-1", "tenantId", "acme",
				"entityCode", "orders", "workMillis", "soon")), "workMillis: must be a whole number");
		assertInvalid(SampleHttp.post(this.a.uri("/users"), Map.of("pin", List.of("p"), "name", "Array Pin")),
				"pin: must be a string");
		assertInvalid(SampleHttp.post(this.b.uri("/users"), "{\"pin\": "), "the body is not a JSON object of the expected shape");
	}

	private static void assertInvalid(Reply reply, String error) {
		assertProblem(reply, 400, "Invalid request");
		assertThat(reply.json().get("detail").asString()).as("detail of %s", reply).isEqualTo(error);
	}

	@Test
	@Order(5)
	void badRequestsGetProblemDetailsWithoutStackTraces() {
		assertProblem(SampleHttp.post(this.a.uri("/users"), Map.of("name", "No Pin")), 400, "No lock key");
		assertProblem(SampleHttp.post(this.b.uri("/users"), Map.of("pin", "   ", "name", "Blank Pin")), 400, "No lock key");
		assertProblem(SampleHttp.post(this.a.uri("/users"), Map.of("pin", "pin-2001", "name", "")), 400, "Invalid request");
		assertProblem(SampleHttp.post(this.b.uri("/users"), "{\"pin\": "), 400, "Invalid request");
		Reply invalidImport = SampleHttp.post(this.a.uri("/imports"),
				Map.of("requestId", "", "tenantId", "acme:eu", "entityCode", "orders", "workMillis", -1));
		assertProblem(invalidImport, 400, "Invalid request");
		assertThat(invalidImport.json().get("errors")).hasSize(3);
		assertProblem(SampleHttp.get(this.b.uri("/imports?tenantId=&entityCode=orders")), 400, "Invalid request");
		assertProblem(SampleHttp.get(this.a.uri("/push/runs?limit=many")), 400, "Bad Request");
		assertProblem(SampleHttp.get(this.a.uri("/users/pin-unknown")), 404, "Not found");
		assertProblem(SampleHttp.get(this.b.uri("/no/such/resource")), 404, "Not Found");
	}

	/** Field report 4: 200 sign-ups at once over both instances for 100 places never oversell. */
	@Test
	@Order(5)
	void twoHundredConcurrentSignupsOnBothInstancesTakeExactlyTheHundredPlaces() {
		List<CompletableFuture<Reply>> replies = new ArrayList<>();
		for (int k = 0; k < 200; k++) {
			// every fourth one a retry of the previous request id, sent to the other instance
			String requestId = "req-" + ((k % 4 == 3) ? k - 1 : k);
			replies.add(SampleHttp.postAsync(((k % 2 == 0) ? this.a : this.b).uri("/events/launch/signups"),
					Map.of("participant", "p-" + k, "requestId", requestId)));
		}
		List<Reply> answers = replies.stream().map(SampleHttp::await).toList();
		assertThat(answers).allSatisfy((reply) -> assertThat(reply.status()).as("%s", reply).isIn(201, 409));
		Set<String> placesTaken = answers.stream()
			.filter((reply) -> reply.status() == 201)
			.map((reply) -> reply.json().get("requestId").asString())
			.collect(Collectors.toSet());
		assertThat(placesTaken).as("request ids that took a place").hasSize(100);
		answers.stream().filter((reply) -> reply.status() == 409).limit(3).forEach((full) -> assertProblem(full, 409, "Event full"));
		assertThat(answers.stream().map((reply) -> reply.status() == 201 ? reply.json().get("handledBy").asString() : "-"))
			.as("instances that took places").contains("a", "b");
		JsonNode places = SampleHttp.get(this.b.uri("/events/launch")).json();
		assertThat(places.get("taken").asLong()).isEqualTo(100);
		assertThat(places.get("signups").asLong()).as("rows written").isEqualTo(100);
	}

	@Test
	@Order(5)
	void readingAnEventsPlacesPastTenASecondGets429WithRetryAfter() {
		// the path run once on each instance, so that the burst is not spread out by first-call work
		assertThat(SampleHttp.get(this.a.uri("/events/warm-up")).status()).isEqualTo(200);
		assertThat(SampleHttp.get(this.b.uri("/events/warm-up")).status()).isEqualTo(200);
		List<CompletableFuture<Reply>> replies = new ArrayList<>();
		long start = System.nanoTime();
		for (int k = 0; k < 60; k++) {
			replies.add(SampleHttp.getAsync(((k % 2 == 0) ? this.a : this.b).uri("/events/limited")));
		}
		List<Reply> answers = replies.stream().map(SampleHttp::await).toList();
		long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
		assertThat(answers).allSatisfy((reply) -> assertThat(reply.status()).as("%s", reply).isIn(200, 429));
		long allowed = answers.stream().filter((reply) -> reply.status() == 200).count();
		// a rested key allows its burst of 10, then one every 100 ms while the requests last
		assertThat(allowed).as("reads allowed in %d ms", elapsedMillis).isBetween(10L, 10 + elapsedMillis / 100 + 1);
		Reply refused = answers.stream().filter((reply) -> reply.status() == 429).findFirst().orElseThrow();
		assertProblem(refused, 429, "Too many requests");
		assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
	}

	@Test
	@Order(6)
	void thePushJobRecordsItsRuns() {
		await("a push run is recorded", () -> !SampleHttp.get(this.a.uri("/push/runs")).json().isEmpty());
		for (JsonNode run : SampleHttp.get(this.b.uri("/push/runs")).json()) {
			Instant scheduledFor = instant(run, "scheduledFor");
			assertThat(scheduledFor.getEpochSecond() % 2).as("firing of */2 * * * * *: %s", run).isZero();
			assertThat(scheduledFor).isBeforeOrEqualTo(instant(run, "startedAt"));
			assertThat(run.get("instanceId").asString()).isIn("a", "b");
		}
		// One run per firing across both instances, and the firings rotate over them.
		await("push runs on both instances", () -> StreamSupport.stream(SampleHttp.get(this.a.uri("/push/runs?limit=500"))
			.json().spliterator(), false).map((run) -> run.get("instanceId").asString()).distinct().count() == 2);
		Map<Instant, Long> runsPerFiring = StreamSupport.stream(SampleHttp.get(this.a.uri("/push/runs?limit=500")).json()
			.spliterator(), false)
			.collect(Collectors.groupingBy((run) -> instant(run, "scheduledFor"), Collectors.counting()));
		assertThat(runsPerFiring).as("runs per firing").allSatisfy((firing, runs) -> assertThat(runs).isEqualTo(1));
		JsonNode guard = SampleHttp.get(this.b.uri("/push/guard")).json();
		assertThat(guard.get("lastRun").get("instance").asString()).isIn("a", "b");
		assertThat(guard.get("history")).isNotEmpty();
	}

	/** The home page leads to the console; the console's JSON and the actuator's, read from both instances. */
	@Test
	@Order(6)
	void theHomePageLeadsToTheConsoleOverTheWholeCluster() {
		Reply page = SampleHttp.getPage(this.a.uri("/"));
		assertThat(page.status()).isEqualTo(200);
		assertThat(page.body()).contains("Lockstep sample").contains("lockstep/");
		JsonNode cluster = SampleHttp.get(this.b.uri("/lockstep/api/cluster")).json();
		assertThat(cluster.get("instances")).extracting((instance) -> instance.get("id").asString()).contains("a", "b");
		assertThat(cluster.get("queues")).extracting((queue) -> queue.get("name").asString()).contains("imports");
		assertThat(cluster.get("jobs")).extracting((job) -> job.get("name").asString()).contains("daily-push");
		JsonNode overview = SampleHttp.get(this.b.uri("/actuator/lockstep")).json();
		assertThat(overview.get("jobGuardInstance").asString()).isEqualTo("b");
		assertThat(overview.get("redisMode").asString()).isEqualTo("standalone");
		assertThat(overview.get("jobs")).extracting(JsonNode::asString).containsExactly("daily-push");
		JsonNode queue = SampleHttp.get(this.a.uri("/actuator/lockstep/queues/imports")).json();
		assertThat(queue.get("listenedHere").asBoolean()).isTrue();
		Reply health = SampleHttp.get(this.a.uri("/actuator/health/lockstep"));
		assertThat(health.status()).isEqualTo(200);
		assertThat(health.json().get("status").asString()).isEqualTo("UP");
	}

	/**
	 * The console in a real headless browser, on instance b: its script reads the cluster from Redis
	 * and fills the page. Instance a holds a group's lock, with a call of its own waiting behind it.
	 * Needs Chromium ({@code apt-get install chromium}; .ci/run installs it).
	 */
	@Test
	@Order(6)
	void theConsoleInAHeadlessBrowserShowsBothInstancesTheLockOfTheOtherTheQueueAndTheJob() throws Exception {
		HeadlessBrowser browser = HeadlessBrowser.find().orElse(null);
		assumeTrue(browser != null, "no Chromium on the PATH (apt-get install chromium, or set CHROMIUM): the console's JSON is checked above");
		Group group = new Group("acme", "browser");
		// held well past the group wait (6 s) after the waiter joins, so that the waiter is still waiting
		// while the page renders, then gives up
		CompletableFuture<Reply> holder = importAsync(this.a, group, "browser-1", GROUP_WAIT.toMillis() + 10_000);
		awaitJoined(group, 1);
		// a's heartbeat record (every second here) tells the cluster what a holds
		await("the lock a holds in b's console", () -> SampleHttp.get(this.b.uri("/lockstep/api/cluster")).json().get("locks")
			.toString().contains("acme"));
		// the waiter joins only now: its group wait starts after the wait for the heartbeat, however long that took
		CompletableFuture<Reply> waiter = importAsync(this.a, group, "browser-2", 0);
		awaitJoined(group, 2);
		String dom = browser.render(this.b.uri("/lockstep/"), Duration.ofSeconds(3));

		assertThat(dom).as("read by b").contains("(this one)").contains("data-loaded=");
		assertThat(section(dom, "instances")).contains("data-instance=\"a\"").contains("data-instance=\"b\"");
		assertThat(section(dom, "locks")).as("the lock a holds, and its waiter").contains("acme").contains("browser")
			.containsPattern("<td>a</td>").containsPattern("<td>a\\.\\w+:\\w+\\.\\w+</td>");
		assertThat(dom).contains("data-queue=\"imports\"").contains("data-job=\"daily-push\"");
		assertThat(SampleHttp.await(waiter).status()).as("the waiter's turn did not come within the group wait").isEqualTo(409);
		assertThat(SampleHttp.await(holder).status()).isEqualTo(200);
	}

	/** The table with id {@code id} in a rendered page. */
	private static String section(String dom, String id) {
		int start = dom.indexOf("<table id=\"" + id + "\"");
		assertThat(start).as("table %s in the page", id).isNotNegative();
		return dom.substring(start, dom.indexOf("</table>", start));
	}

	/** Kills one instance: the tests after it use the survivor. */
	@Test
	@Order(7)
	void anImportWhoseInstanceIsKilledMidRunCompletesOnTheOtherBeforeItsGroupsNext() {
		Group ledger = new Group("crash", "ledger");
		String slow = submit(this.a, ledger, "ledger-1", 8000).json().get("taskId").asString();
		String next = submit(this.b, ledger, "ledger-2", 10).json().get("taskId").asString();
		await("the slow import running", () -> state(this.a, slow).equals("RUNNING")
				&& !SampleHttp.get(this.a.uri("/imports/" + slow)).json().get("runs").isEmpty());
		String ranOn = SampleHttp.get(this.a.uri("/imports/" + slow)).json().get("runs").get(0).get("instanceId").asString();
		SampleInstance doomed = ranOn.equals("a") ? this.a : this.b;
		this.survivor = (doomed == this.a) ? this.b : this.a;
		doomed.kill();

		// its lease (3s) runs out, the survivor runs it again (8s), then the group's next import
		await("the import done on " + this.survivor.id(), () -> state(this.survivor, slow).equals("DONE"));
		JsonNode status = SampleHttp.get(this.survivor.uri("/imports/" + slow)).json();
		assertThat(status.get("attempt").asInt()).isEqualTo(2);
		assertThat(status.get("lastError").asString()).contains("lease ran out");
		// The killed run's row is there unless the killed instance was the one serving the shared H2
		// database (AUTO_SERVER), whose last commits a SIGKILL can take with it; the queue's own
		// record (attempt 2, the lease that ran out) does not depend on it.
		JsonNode runs = status.get("runs");
		JsonNode rerun = runs.get(runs.size() - 1);
		assertThat(rerun.get("attempt").asInt()).isEqualTo(2);
		assertThat(rerun.get("instanceId").asString()).isEqualTo(this.survivor.id());
		assertThat(rerun.get("finishedAt").isNull()).isFalse();
		if (runs.size() == 2) {
			assertThat(runs.get(0).get("instanceId").asString()).isEqualTo(doomed.id());
			assertThat(runs.get(0).get("finishedAt").isNull()).as("the killed run never finished").isTrue();
		}
		assertThat(runs.size()).isBetween(1, 2);
		await("the group's next import done", () -> state(this.survivor, next).equals("DONE"));
		JsonNode nextRun = SampleHttp.get(this.survivor.uri("/imports/" + next)).json().get("runs").get(0);
		assertThat(instant(nextRun, "startedAt")).isAfterOrEqualTo(instant(rerun, "finishedAt"));
	}

	/** Last: it stops Redis. */
	@Test
	@Order(8)
	void withoutRedisLockedCallsAndSubmitsAnswer503() {
		SampleInstance instance = (this.survivor != null) ? this.survivor : this.a;
		this.redis.kill();

		assertProblem(SampleHttp.post(instance.uri("/users"), Map.of("pin", "pin-3001", "name", "During an outage")), 503,
				"Coordination unavailable");
		assertThat(SampleHttp.get(instance.uri("/users?pin=pin-3001")).json()).isEmpty();
		assertProblem(submit(instance, new Group("outage", "orders"), "outage-1", 0), 503, "Coordination unavailable");
	}

	/** After the outage: the limit is the web layer's, it needs no Redis. */
	@Test
	@Order(9)
	void aRequestBodyOverTheLimitIs413NamingTheLimitWhetherItsLengthIsDeclaredOrNot() {
		SampleInstance instance = (this.survivor != null) ? this.survivor : this.a;
		String tooLarge = "{\"requestId\":\"" + "x".repeat(64 * 1024) + "\"}";
		Reply declared = SampleHttp.post(instance.uri("/imports"), tooLarge);
		assertProblem(declared, 413, "Request body too large");
		assertThat(declared.json().get("detail").asString()).isEqualTo("The request body is " + tooLarge.length()
				+ " bytes; this service takes at most 65536 bytes (sample.max-request-body)");
		Reply chunked = SampleHttp.postChunked(instance.uri("/imports"), tooLarge);
		assertProblem(chunked, 413, "Request body too large");
		assertThat(chunked.json().get("detail").asString())
			.isEqualTo("The request body is over 65536 bytes; this service takes at most 65536 bytes (sample.max-request-body)");
		// a chunked body within the limit still reaches the controller (and fails validation there, not here)
		Reply small = SampleHttp.postChunked(instance.uri("/imports"), "{}");
		assertThat(small.status()).as(small.toString()).isEqualTo(400);
	}

	private Reply submit(SampleInstance instance, Group group, String requestId, long workMillis) {
		return SampleHttp.post(instance.uri("/imports"), Map.of("requestId", requestId, "tenantId", group.tenantId(),
				"entityCode", group.entityCode(), "workMillis", workMillis));
	}

	private static String state(SampleInstance instance, String taskId) {
		Reply reply = SampleHttp.get(instance.uri("/imports/" + taskId));
		assertThat(reply.status()).as("status of import %s: %s", taskId, reply).isEqualTo(200);
		return reply.json().get("state").asString();
	}

	private CompletableFuture<Reply> importAsync(SampleInstance instance, Group group, String requestId, long workMillis) {
		return SampleHttp.postAsync(instance.uri("/imports/sync"), Map.of("requestId", requestId, "tenantId", group.tenantId(),
				"entityCode", group.entityCode(), "workMillis", workMillis));
	}

	private List<JsonNode> runs(Group group) {
		Reply reply = SampleHttp.get(this.a.uri("/imports?tenantId=" + group.tenantId() + "&entityCode=" + group.entityCode()));
		assertThat(reply.status()).as("runs of %s: %s", group, reply).isEqualTo(200);
		return StreamSupport.stream(reply.json().spliterator(), false).toList();
	}

	/**
	 * Waits until {@code count} requests of the group have joined its queue: those still queued
	 * plus those that started. The queue is read the way an operator reads it, through the
	 * {@code lockstep} endpoint's view of the group's lock ({@code group:<name>:<group key>}).
	 */
	private void awaitJoined(Group group, int count) {
		String lock = "group:imports:" + group.tenantId() + ":" + group.entityCode();
		await(count + " request(s) of " + group + " in its queue or started", () -> {
			Reply state = SampleHttp.get(this.a.uri("/actuator/lockstep/locks/" + lock));
			assertThat(state.status()).as("state of %s: %s", lock, state).isEqualTo(200);
			long queued = state.json().get("waitersInAll").asLong();
			this.longestQueueSeen = Math.max(this.longestQueueSeen, queued);
			return queued + runs(group).size() >= count;
		});
	}

	private void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + AWAIT_TIMEOUT.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				fail("Waited " + AWAIT_TIMEOUT + " for " + what + ".\nInstance a:\n" + this.a.output() + "\nInstance b:\n" + this.b.output());
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
	}

	private static void assertProblem(Reply reply, int status, String title) {
		assertThat(reply.status()).as("status of %s", reply).isEqualTo(status);
		assertThat(reply.contentType()).as("content type of %s", reply).startsWith("application/problem+json");
		JsonNode problem = reply.json();
		assertThat(problem.get("status").asInt()).isEqualTo(status);
		assertThat(problem.get("title").asString()).isEqualTo(title);
		assertThat(problem.has("trace")).as("trace in %s", reply).isFalse();
		assertThat(reply.body()).as("body").doesNotContain("Exception", "\tat ", "\\tat ");
	}

	private static Instant instant(JsonNode node, String field) {
		return Instant.parse(node.get(field).asString());
	}

	/**
	 * An import group.
	 * @param tenantId the tenant
	 * @param entityCode the entity code
	 */
	private record Group(String tenantId, String entityCode) {

		@Override
		public String toString() {
			return this.tenantId + ":" + this.entityCode;
		}

	}

}
