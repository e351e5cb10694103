package dev.lockstep.console;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real headless Chromium driven over its DevTools protocol: navigates, runs JavaScript in the
 * page (to read the DOM and to click), and records every URL the page requests. Found as
 * {@code CHROMIUM}, else {@code chromium} or {@code chromium-browser} on the PATH.
 */
final class Chromium implements AutoCloseable {

	private static final Pattern LISTENING = Pattern.compile("DevTools listening on ws://[^:]+:(\\d+)/");

	private static final JsonMapper json = JsonMapper.builder().build();

	private final Process process;

	private final Path profile;

	private final WebSocket socket;

	private final AtomicLong ids = new AtomicLong();

	private final Map<Long, CompletableFuture<JsonNode>> replies = new ConcurrentHashMap<>();

	private final List<String> requested = new CopyOnWriteArrayList<>();

	private Chromium(Process process, Path profile, WebSocket socket) {
		this.process = process;
		this.profile = profile;
		this.socket = socket;
	}

	static Optional<Path> binary() {
		String configured = System.getenv("CHROMIUM");
		if (configured != null && !configured.isBlank()) {
			return Optional.of(Path.of(configured));
		}
		return Stream.of(System.getenv("PATH").split(java.io.File.pathSeparator))
			.flatMap((dir) -> Stream.of(Path.of(dir, "chromium"), Path.of(dir, "chromium-browser")))
			.filter(Files::isExecutable)
			.findFirst();
	}

	static Chromium start(Path binary) throws Exception {
		Path profile = Files.createTempDirectory("lockstep-console-chromium-");
		Process process = new ProcessBuilder(List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
				"--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking", "--user-data-dir=" + profile,
				"--remote-debugging-port=0", "about:blank"))
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		CompletableFuture<String> port = new CompletableFuture<>();
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = lines.readLine()) != null) {
					Matcher matcher = LISTENING.matcher(line);
					if (matcher.find()) {
						port.complete(matcher.group(1));
					}
				}
			}
			catch (IOException ex) {
				port.completeExceptionally(ex);
			}
		}, "chromium-stderr");
		reader.setDaemon(true);
		reader.start();
		try {
			String devtools = "http://127.0.0.1:" + port.get(30, TimeUnit.SECONDS);
			HttpClient http = HttpClient.newHttpClient();
			JsonNode targets = json.readTree(http.send(HttpRequest.newBuilder(URI.create(devtools + "/json/list")).build(),
					HttpResponse.BodyHandlers.ofString()).body());
			String page = null;
			for (JsonNode target : targets) {
				if ("page".equals(target.get("type").asString())) {
					page = target.get("webSocketDebuggerUrl").asString();
				}
			}
			if (page == null) {
				throw new IllegalStateException("Chromium shows no page target: " + targets);
			}
			Chromium[] self = new Chromium[1];
			WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(page), new WebSocket.Listener() {

				private final StringBuilder message = new StringBuilder();

				@Override
				public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
					this.message.append(data);
					if (last) {
						self[0].received(this.message.toString());
						this.message.setLength(0);
					}
					webSocket.request(1);
					return null;
				}

			}).get(10, TimeUnit.SECONDS);
			self[0] = new Chromium(process, profile, socket);
			self[0].call("Network.enable", Map.of());
			self[0].call("Page.enable", Map.of());
			return self[0];
		}
		catch (Exception ex) {
			process.destroyForcibly();
			throw ex;
		}
	}

	private void received(String text) {
		JsonNode message = json.readTree(text);
		if (message.has("id")) {
			CompletableFuture<JsonNode> reply = this.replies.remove(message.get("id").asLong());
			if (reply != null) {
				reply.complete(message);
			}
		}
		else if ("Network.requestWillBeSent".equals(message.path("method").asString())) {
			this.requested.add(message.path("params").path("request").path("url").asString());
		}
	}

	JsonNode call(String method, Map<String, Object> params) throws Exception {
		long id = this.ids.incrementAndGet();
		CompletableFuture<JsonNode> reply = new CompletableFuture<>();
		this.replies.put(id, reply);
		this.socket.sendText(json.writeValueAsString(Map.of("id", id, "method", method, "params", params)), true)
			.get(10, TimeUnit.SECONDS);
		JsonNode answer = reply.get(30, TimeUnit.SECONDS);
		if (answer.has("error")) {
			throw new IllegalStateException(method + " failed: " + answer.get("error"));
		}
		return answer.path("result");
	}

	/** Every request of the page carries HTTP Basic credentials from now on. */
	void signIn(String user, String password) throws Exception {
		String basic = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
		call("Network.setExtraHTTPHeaders", Map.of("headers", Map.of("Authorization", "Basic " + basic)));
	}

	void navigate(String url) throws Exception {
		call("Page.navigate", Map.of("url", url));
	}

	/** The value of a JavaScript expression evaluated in the page (promises awaited). */
	JsonNode evaluate(String expression) throws Exception {
		JsonNode result = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
		if (result.has("exceptionDetails")) {
			throw new IllegalStateException("'" + expression + "' threw: " + result.get("exceptionDetails"));
		}
		return result.path("result").path("value");
	}

	/** Waits until {@code expression} is true in the page. */
	void await(String expression, Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		JsonNode value = null;
		while (System.nanoTime() < deadline) {
			try {
				value = evaluate(expression);
				if (value.isBoolean() && value.asBoolean()) {
					return;
				}
			}
			catch (IllegalStateException ex) {
				value = null;
			}
			Thread.sleep(100);
		}
		throw new AssertionError("Not true in the page within " + timeout + ": " + expression + " (last value " + value
				+ "); the page says: " + evaluate("document.body ? document.body.innerText : ''"));
	}

	/** Every URL the page requested so far. */
	List<String> requested() {
		return new ArrayList<>(this.requested);
	}

	@Override
	public void close() throws Exception {
		try {
			this.socket.abort();
			this.process.destroy();
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		finally {
			try (Stream<Path> files = Files.walk(this.profile)) {
				files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
		}
	}

}
