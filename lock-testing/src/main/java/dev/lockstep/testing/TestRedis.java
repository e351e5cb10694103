package dev.lockstep.testing;

import java.net.URI;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone Redis that tests in one JVM share, found in this order: the {@code REDIS_URL}
 * environment variable ({@code redis://host:port}); a container when a Docker engine answers; a
 * {@link RedisServer} process. Tests that need servers of their own (cluster, restart, kill)
 * start them directly instead.
 */
public final class TestRedis {

	private static final Logger logger = LoggerFactory.getLogger(TestRedis.class);

	private static @Nullable Endpoint shared;

	private TestRedis() {
	}

	/** The shared server, started on first use and left running until the JVM exits. */
	public static synchronized Endpoint standalone() {
		if (shared == null) {
			shared = locate();
			logger.info("Tests use Redis at {}:{} ({})", shared.host(), shared.port(), shared.source());
		}
		return shared;
	}

	private static Endpoint locate() {
		String url = System.getenv("REDIS_URL");
		if (url != null && !url.isBlank()) {
			URI uri = URI.create(url);
			return new Endpoint(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379, "REDIS_URL");
		}
		Endpoint container = ContainerRedis.startIfDockerAnswers();
		if (container != null) {
			return container;
		}
		try {
			RedisServer server = RedisServer.start();
			return new Endpoint(server.host(), server.port(), "redis-server process " + RedisBinary.find());
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("Tests need a real Redis and none could be started. Set REDIS_URL=redis://host:port, "
					+ "run a Docker engine, or install redis-server (see README). Cause: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Where a test's Redis is.
	 * @param host the host name
	 * @param port the port
	 * @param source how it was found, for the log
	 */
	public record Endpoint(String host, int port, String source) {

		public String url() {
			return "redis://" + this.host + ":" + this.port;
		}

	}

}
