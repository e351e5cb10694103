package dev.lockstep.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** JSON over HTTP for the end-to-end test, every call bounded in time. */
final class SampleHttp {

	static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

	private static final HttpClient CLIENT = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(10))
		.build();

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private SampleHttp() {
	}

	static CompletableFuture<Reply> postAsync(URI uri, Map<String, ?> body) {
		return postAsync(uri, JSON.writeValueAsString(body));
	}

	static CompletableFuture<Reply> postAsync(URI uri, String json) {
		return send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json)));
	}

	static Reply post(URI uri, Map<String, ?> body) {
		return await(postAsync(uri, body));
	}

	static Reply post(URI uri, String json) {
		return await(postAsync(uri, json));
	}

	/** A POST whose body goes in chunks, without a Content-Length. */
	static Reply postChunked(URI uri, String json) {
		byte[] body = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
		return await(send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body)))));
	}

	static Reply get(URI uri) {
		return await(getAsync(uri));
	}

	static CompletableFuture<Reply> getAsync(URI uri) {
		return send(HttpRequest.newBuilder(uri).GET());
	}

	/** A GET as a browser sends it, asking for HTML. */
	static Reply getPage(URI uri) {
		return await(CLIENT.sendAsync(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).header("Accept", "text/html").GET()
			.build(), HttpResponse.BodyHandlers.ofString())
			.thenApply((response) -> new Reply(response.statusCode(), response.headers(), response.body())));
	}

	/** The reply, waiting a little longer than the request's own timeout. */
	static Reply await(CompletableFuture<Reply> reply) {
		try {
			return reply.get(REQUEST_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("No reply: " + ex, ex);
		}
	}

	private static CompletableFuture<Reply> send(HttpRequest.Builder request) {
		return CLIENT.sendAsync(request.timeout(REQUEST_TIMEOUT).header("Accept", "application/json, application/problem+json").build(),
				HttpResponse.BodyHandlers.ofString())
			.thenApply((response) -> new Reply(response.statusCode(), response.headers(), response.body()));
	}

	/**
	 * One HTTP answer.
	 * @param status the status code
	 * @param headers the headers
	 * @param body the body as text
	 */
	record Reply(int status, HttpHeaders headers, String body) {

		JsonNode json() {
			return JSON.readTree(this.body);
		}

		String contentType() {
			return this.headers.firstValue("Content-Type").orElse("");
		}

		@Override
		public String toString() {
			return this.status + " " + this.body;
		}

	}

}
