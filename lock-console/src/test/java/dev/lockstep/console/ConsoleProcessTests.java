package dev.lockstep.console;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;
import dev.lockstep.console.app.ConsoleTestApp;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console against real Redis and three application JVMs ({@link ConsoleTestApp}: a, b, c),
 * rendered and clicked in a real headless Chromium signed in as the operator on a's console. The
 * steps share the JVMs and run in order; the last one kills b.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConsoleProcessTests {

	private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final String prefix = "console-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final List<JavaProcess> apps = new ArrayList<>();

	private final List<String> urls = new ArrayList<>();

	private final HttpClient http = HttpClient.newHttpClient();

	private LettuceConnectionFactory factory;

	private StringRedisTemplate redis;

	private Chromium browser;

	@BeforeAll
	void start() throws Exception {
		Path chromium = Chromium.binary().orElse(null);
		if (chromium == null) {
			// CI installs it (.ci/run); elsewhere the test is skipped without one
			assertThat(System.getenv("CI")).as("chromium on the PATH in CI").isNull();
			Assumptions.abort("no chromium on the PATH (or CHROMIUM)");
		}
		TestRedis.Endpoint endpoint = TestRedis.standalone();
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(endpoint.host(), endpoint.port()));
		this.factory.afterPropertiesSet();
		this.factory.start();
		this.redis = new StringRedisTemplate(this.factory);
		this.redis.delete(List.of("console-test:healed", "console-test:ran:g1", "console-test:ran:g2", "console-test:ran:g3"));
		for (String name : List.of("a", "b", "c")) {
			this.apps.add(JavaProcess.start("console-" + name, ConsoleTestApp.class,
					List.of("-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"), "--server.port=0",
					"--spring.data.redis.host=" + endpoint.host(), "--spring.data.redis.port=" + endpoint.port(),
					"--lockstep.key-prefix=" + this.prefix, "--lockstep.instance-id=" + name,
					"--lockstep.console.enabled=" + name.equals("a"), "--lockstep.console.heartbeat-interval=300ms",
					"--lockstep.queue.max-attempts=1", "--spring.application.version=1.0." + name,
					"--lockstep.queue.queues.retrying.max-attempts=3", "--lockstep.queue.queues.retrying.retry-backoff=10m",
					"--console-test.report=" + !name.equals("a"),
					"--spring.main.banner-mode=off", "--logging.level.root=WARN",
					"--logging.level.org.springframework.boot.tomcat=INFO",
					"--logging.level.org.springframework.boot.web.embedded.tomcat=INFO",
					"--logging.level.dev.lockstep.console=INFO"));
		}
		for (JavaProcess app : this.apps) {
			// a bound on three Boot JVMs starting on a loaded machine, not a timing the test checks
			Matcher port = PORT.matcher(app.awaitLine((line) -> PORT.matcher(line).find(), Duration.ofSeconds(150)));
			assertThat(port.find()).isTrue();
			this.urls.add("http://127.0.0.1:" + port.group(1));
		}
		this.browser = Chromium.start(chromium);
		this.browser.signIn("operator", "operator-secret");
	}

	@AfterAll
	void stop() throws Exception {
		if (this.browser != null) {
			this.browser.close();
		}
		this.apps.forEach(JavaProcess::kill);
		if (this.factory != null) {
			this.factory.destroy();
		}
	}

	@Test
	@Order(1)
	void clusterViewListsEveryInstanceAndALockHeldOnAnother() throws Exception {
		String token = get(this.urls.get(1) + "/test/hold?key=nightly-report");
		assertThat(token).isNotEqualTo("none");
		this.browser.navigate(this.urls.get(0) + "/lockstep");
		this.browser.await("document.querySelectorAll('#instances tr[data-instance] td.alive').length === 3", WAIT);
		this.browser.await("!!document.querySelector('#locks tr[data-lock=\"nightly-report\"]') && "
				+ "document.querySelector('#locks tr[data-lock=\"nightly-report\"]').innerText.includes('holder-nightly-report') && "
				+ "document.querySelector('#locks tr[data-lock=\"nightly-report\"] td:nth-child(2)').innerText === 'b' && "
				+ "document.querySelector('#locks tr[data-lock=\"nightly-report\"] td:nth-child(4)').innerText === '" + token + "'", WAIT);
		assertThat(this.browser.evaluate("document.querySelector('#instances').innerText").asString())
			.contains("a (this one)", "1.0.b", "1.0.c");
		// nothing but the application: the page, its two assets, its API (and the browser's own favicon request)
		assertThat(this.browser.requested()).contains(this.urls.get(0) + "/lockstep/assets/console.js")
			.allMatch((url) -> url.startsWith(this.urls.get(0) + "/"));
	}

	@Test
	@Order(2)
	void deadTaskRedrivenFromThePageRuns() throws Exception {
		String id = get(this.urls.get(2) + "/test/submit?group=g1&payload=fail-1");
		String row = "document.querySelector('#queues tr[data-task=\"" + id + "\"]')";
		this.browser.await("!!" + row, WAIT);
		this.redis.opsForValue().set("console-test:healed", "yes");
		this.browser.evaluate(row + ".querySelector('button[data-action=\"redrive\"]').click()");
		awaitRedis("console-test:ran:g1", List.of("fail-1"));
		this.browser.await("!" + row, WAIT);
	}

	@Test
	@Order(3)
	void pausedGroupWaitsAndRunsInOrderAfterResume() throws Exception {
		// g2 has no task yet: the queue's 'Pause a group…' button asks for its name
		String queue = "document.querySelector('#queues div[data-queue=\"work\"]')";
		this.browser.await("!!" + queue, WAIT);
		this.browser.evaluate("window.prompt = function () { return 'g2'; }; " + queue
				+ ".querySelector('button[data-action=\"pause-group\"]').click()");
		awaitPaused("g2");
		for (String payload : List.of("p1", "p2", "p3")) {
			get(this.urls.get(1) + "/test/submit?group=g2&payload=" + payload);
		}
		get(this.urls.get(2) + "/test/submit?group=g3&payload=other");
		awaitRedis("console-test:ran:g3", List.of("other"));
		String paused = "document.querySelector('#queues tr[data-group=\"g2\"][data-paused=\"true\"]')";
		this.browser.await("!!" + paused, WAIT);
		Thread.sleep(500);
		assertThat(this.redis.opsForList().range("console-test:ran:g2", 0, -1)).as("tasks of the paused group run").isEmpty();
		this.browser.evaluate(paused + ".querySelector('button[data-action=\"resume\"]').click()");
		awaitRedis("console-test:ran:g2", List.of("p1", "p2", "p3"));
	}

	@Test
	@Order(4)
	void readOnlyUserCannotAct() throws Exception {
		String pause = this.urls.get(0) + "/lockstep/api/actions/pause?queue=work";
		assertThat(post(pause, "viewer", "viewer-secret", true).statusCode()).isEqualTo(403);
		assertThat(this.redis.opsForHash().hasKey(this.prefix + "{queue:work}:owners", "~paused")).isFalse();
		assertThat(post(pause, "operator", "operator-secret", false).statusCode()).as("without the action header").isEqualTo(403);
		HttpResponse<String> viewed = this.http.send(HttpRequest.newBuilder(URI.create(this.urls.get(0) + "/lockstep/api/cluster"))
			.header("Authorization", basic("viewer", "viewer-secret")).build(), HttpResponse.BodyHandlers.ofString());
		assertThat(viewed.statusCode()).isEqualTo(200);
		HttpResponse<String> acted = post(this.urls.get(0) + "/lockstep/api/actions/resume?queue=work", "operator", "operator-secret", true);
		assertThat(acted.statusCode()).as("the operator may").isEqualTo(200);
		assertThat(acted.body()).contains("not paused");
		assertThat(this.http.send(HttpRequest.newBuilder(URI.create(this.urls.get(0) + "/lockstep/api/cluster")).build(),
				HttpResponse.BodyHandlers.ofString()).statusCode()).as("anonymous").isEqualTo(401);
	}

	@Test
	@Order(5)
	void retriesDueAndOldestTaskAgeAreShown() throws Exception {
		long before = System.currentTimeMillis();
		get(this.urls.get(1) + "/test/submit?queue=retrying&group=r1&payload=stuck-1");
		long after = System.currentTimeMillis();
		get(this.urls.get(2) + "/test/submit?queue=retrying&group=r1&payload=stuck-2");
		get(this.urls.get(2) + "/test/submit?queue=retrying&group=r2&payload=stuck-3");
		// both heads fail once and wait out a 10-minute backoff; stuck-2 waits behind stuck-1
		String queue = "window.lockstepConsole.last().queues.find(function (q) { return q.name === 'retrying'; })";
		this.browser.await("!!" + queue + " && " + queue + ".backlog.retriesWaiting === 2", WAIT);
		assertThat(this.browser.evaluate(queue + ".backlog.retriesDueNow").asLong()).isZero();
		long nextRetry = this.browser.evaluate(queue + ".backlog.nextRetryInMillis").asLong();
		assertThat(nextRetry).as("next retry in").isBetween(Duration.ofMinutes(9).toMillis(), Duration.ofMinutes(10).toMillis());
		long readAt = this.browser.evaluate("window.lockstepConsole.last().readAt").asLong();
		long age = this.browser.evaluate(queue + ".backlog.oldestAgeMillis").asLong();
		// stuck-1 is the oldest: submitted between before and after (Redis runs on this machine's clock)
		assertThat(age).as("oldest task age").isBetween(readAt - after - 100, readAt - before + 100);
		assertThat(this.browser.evaluate(queue + ".backlog.complete").asBoolean()).isTrue();
		String counts = "document.querySelector('#queues div[data-queue=\"retrying\"]')";
		this.browser.await(counts + ".querySelector('[data-stat=\"retries\"]').innerText.match(/^retries due 2 \\(next in (9|10) min\\)$/) !== null", WAIT);
		assertThat(this.browser.evaluate(counts + ".querySelector('[data-stat=\"oldest\"]').innerText").asString())
			.matches("oldest task [0-9.]+ (s|ms)");
	}

	@Test
	@Order(6)
	void runNowFromAnInstanceThatDoesNotGuardTheJobRunsItOnceAndTheLedgerNamesTheUser() throws Exception {
		String job = "document.querySelector('#jobs div[data-job=\"report\"]')";
		this.browser.await("!!" + job + " && !!" + job + ".querySelector('button[data-action=\"trigger\"]')", WAIT);
		assertThat(this.browser.evaluate(job + ".innerText").asString()).containsPattern("guarded by (b, c|c, b)\\n");
		this.browser.evaluate("window.confirm = function () { return true; }; " + job
				+ ".querySelector('button[data-action=\"trigger\"]').click()");
		this.browser.await("!!" + job + ".querySelector('tr[data-request][data-state=\"RAN\"]')", WAIT);
		this.browser.await(job + ".querySelector('table.runs').innerText.includes('on demand, asked by operator on a')", WAIT);
		String ranOn = this.browser.evaluate(job + ".querySelector('tr[data-request] td:nth-child(5)').innerText").asString();
		assertThat(ranOn).isIn("b", "c");
		// a few more heartbeats of both b and c: no second run
		Thread.sleep(1500);
		String output = this.apps.get(1).output() + this.apps.get(2).output();
		assertThat(output.split("REPORT ran", -1).length - 1).as("runs on b and c").isEqualTo(1);
		assertThat(this.apps.get(0).output()).doesNotContain("REPORT ran").contains("operator asked to run job 'report' now");
		assertThat(this.apps.get(ranOn.equals("b") ? 1 : 2).output()).contains("job 'report' asked by operator on a: ran on " + ranOn);
		String ledger = "window.lockstepConsole.last().jobs.find(function (j) { return j.name === 'report'; })";
		assertThat(this.browser.evaluate(ledger + ".history.filter(function (r) { return r.scheduledTime === null; }).length").asLong())
			.as("on-demand runs in the job's history").isEqualTo(1);
		assertThat(this.browser.evaluate(ledger + ".requests[0].user").asString()).isEqualTo("operator");
		HttpResponse<String> nobody = post(this.urls.get(0) + "/lockstep/api/actions/trigger?job=nightly", "operator",
				"operator-secret", true);
		assertThat(nobody.body()).as("a job no live instance guards").contains("no live instance guards job 'nightly'");
		assertThat(this.redis.hasKey(this.prefix + "console:job-trigger:nightly")).isFalse();
	}

	@Test
	@Order(7)
	void historyHasTasksPerSecondLockWaitPercentilesAndJobDurations() throws Exception {
		// the history keeps one bucket a minute: b's acquisition and c's wait must fall in the same one, or
		// c's wait is alone in its minute and is its median too (a run near a minute's end failed so)
		long intoMinute = System.currentTimeMillis() % 60_000;
		if (intoMinute > 45_000) {
			Thread.sleep(60_000 - intoMinute + 200);
		}
		// c waits about 1.5 s for a lock b holds
		assertThat(get(this.urls.get(1) + "/test/hold-for?key=contended&millis=1500")).isNotEqualTo("none");
		assertThat(get(this.urls.get(2) + "/test/hold-for?key=contended&millis=10")).isNotEqualTo("none");
		String last = "window.lockstepConsole.last()";
		String work = last + ".queues.find(function (q) { return q.name === 'work'; })";
		// done: fail-1 (redriven), p1, p2, p3, other; failed: fail-1's first attempt
		this.browser.await(work + ".tasks.reduce(function (s, t) { return s + t.done; }, 0) === 5", WAIT);
		assertThat(this.browser.evaluate(work + ".tasks.reduce(function (s, t) { return s + t.failed; }, 0)").asLong()).isEqualTo(1);
		assertThat(this.browser.evaluate(work + ".tasks.every(function (t) { return t.perSecond > 0; })").asBoolean()).isTrue();
		this.browser.await("document.querySelector('#queues div[data-queue=\"work\"] [data-chart=\"rate\"] svg').getAttribute('data-points') > 0", WAIT);
		// the three acquisitions: nightly-report, and contended on b then on c after its wait
		String waits = last + ".lockWaits";
		this.browser.await(waits + ".reduce(function (s, w) { return s + w.acquired; }, 0) === 3", WAIT);
		assertThat(this.browser.evaluate(waits + ".some(function (w) { return w.p99 >= 2000 && w.p50 <= 1000; })").asBoolean())
			.as("a wait of about 1.5 s is in the p99 bucket, not the median: " + this.browser.evaluate("JSON.stringify(" + waits + ")"))
			.isTrue();
		this.browser.await("document.querySelector('#lock-waits svg').getAttribute('data-points') > 0", WAIT);
		String report = last + ".jobs.find(function (j) { return j.name === 'report'; })";
		this.browser.await(report + ".runsPerMinute.reduce(function (s, r) { return s + r.runs; }, 0) === 1", WAIT);
		this.browser.await("document.querySelector('#jobs div[data-job=\"report\"] [data-chart=\"durations\"] svg')"
				+ ".getAttribute('data-points') > 0", WAIT);
		String history = this.prefix + "console:history:";
		for (String key : List.of(history + "tasks:work", history + "lock-wait", history + "job:report")) {
			assertThat(this.redis.getExpire(key)).as("expiry of " + key).isBetween(3000L, 3600L);
		}
	}

	@Test
	@Order(8)
	void lockOfADeadInstanceIsReleasedOnlyOnceItIsDead() throws Exception {
		String lock = this.prefix + "{nightly-report}";
		String holder = this.redis.opsForValue().get(lock).split(":")[0];
		String token = this.redis.opsForValue().get(lock).split(":")[2];
		HttpResponse<String> refused = post(this.urls.get(0) + "/lockstep/api/actions/release?key=nightly-report&holder="
				+ holder + "&token=" + token, "operator", "operator-secret", true);
		assertThat(refused.body()).contains("is alive");
		assertThat(this.redis.hasKey(lock)).isTrue();
		this.apps.get(1).kill();
		String row = "document.querySelector('#locks tr[data-lock=\"nightly-report\"]')";
		this.browser.await("!!" + row + " && !!" + row + ".querySelector('button[data-action=\"release\"]')", WAIT);
		this.browser.await("document.querySelector('#instances tr[data-instance=\"b\"] td.dead') !== null", WAIT);
		this.browser.evaluate("window.confirm = function () { return true; }; " + row
				+ ".querySelector('button[data-action=\"release\"]').click()");
		this.browser.await("!" + row, WAIT);
		// the only lock gone, its table says so rather than show nothing
		this.browser.await("!!document.querySelector('#locks tr.none') && "
				+ "document.querySelector('#locks tr.none').innerText.trim() === 'none'", WAIT);
		assertThat(this.redis.hasKey(lock)).isFalse();
		assertThat(this.apps.get(0).output()).contains("operator asked to release lock 'nightly-report' held by " + holder);
	}

	@Test
	@Order(9)
	void permitsInUseAreShownWithTheirHolders() throws Exception {
		String onA = get(this.urls.get(0) + "/test/permit?key=exports&permits=2");
		String onC = get(this.urls.get(2) + "/test/permit?key=exports&permits=2");
		assertThat(List.of(onA, onC)).noneMatch((token) -> token.startsWith("none"));
		String row = "document.querySelector('#permits tr[data-permit=\"exports\"]')";
		this.browser.await("!!" + row + " && " + row + ".querySelector('td:nth-child(2)').innerText === '2' && "
				+ row + ".querySelector('td:nth-child(3)').innerText === '2'", WAIT);
		assertThat(this.browser.evaluate(row + ".querySelector('td:nth-child(5)').innerText").asString())
			.contains("a permit-exports #" + onA, "c permit-exports #" + onC);
		assertThat(this.browser.evaluate("document.querySelector('#locks').innerText").asString()).doesNotContain("exports");
	}

	private void awaitPaused(String group) throws InterruptedException {
		String paused = this.prefix + "{queue:work}:paused";
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (!Boolean.TRUE.equals(this.redis.opsForSet().isMember(paused, group)) && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		assertThat(this.redis.opsForSet().isMember(paused, group)).as("group " + group + " paused").isTrue();
	}

	private void awaitRedis(String list, List<String> expected) throws InterruptedException {
		long deadline = System.nanoTime() + WAIT.toNanos();
		List<String> seen = List.of();
		while (System.nanoTime() < deadline) {
			seen = this.redis.opsForList().range(list, 0, -1);
			if (seen.size() >= expected.size()) {
				break;
			}
			Thread.sleep(50);
		}
		assertThat(seen).as(list).isEqualTo(expected);
	}

	private String get(String url) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(url)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(url + ": " + response.body()).isEqualTo(200);
		return response.body();
	}

	private HttpResponse<String> post(String url, String user, String password, boolean marked) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody())
			.header("Authorization", basic(user, password));
		if (marked) {
			request.header("X-Lockstep-Action", "test");
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String basic(String user, String password) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
	}

}
