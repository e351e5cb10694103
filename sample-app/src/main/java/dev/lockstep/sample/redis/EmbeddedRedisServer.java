package dev.lockstep.sample.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.testing.RedisBinary;
import dev.lockstep.testing.RedisServer;

/**
 * The sample's own {@code redis-server}, from the binary shipped in the embedded-redis jar, on a
 * fixed loopback port that a second instance can be pointed at. Failures to start explain what
 * to do instead.
 */
final class EmbeddedRedisServer {

	static final String HOST = "127.0.0.1";

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedRedisServer.class);

	private final RedisServer server;

	private EmbeddedRedisServer(RedisServer server) {
		this.server = server;
	}

	/** Starts redis-server on {@code port} and waits until it answers PING. */
	static EmbeddedRedisServer start(int port) {
		if (RedisServer.answersPing(HOST, port)) {
			throw new EmbeddedRedisException("No Redis is configured, and a Redis already answers on " + HOST + ":" + port
					+ " (sample.embedded-redis.port), probably the embedded Redis of another instance of the sample.",
					"Share that Redis with --spring.data.redis.port=" + port + ", or give this instance its own with "
							+ "--sample.embedded-redis.port=<a free port>.", null);
		}
		String binary;
		try {
			binary = RedisBinary.find().toString();
		}
		catch (IllegalStateException ex) {
			throw new EmbeddedRedisException("No Redis is configured, and no redis-server could be found to start one: "
					+ ex.getMessage(), "Point the sample at a running Redis with --spring.data.redis.host and "
							+ "--spring.data.redis.port, or set REDIS_SERVER=/path/to/redis-server.", ex);
		}
		try {
			RedisServer server = RedisServer.startOnPort(port);
			logger.info("No Redis is configured, so the sample started its own: {} on {}:{}. Point a second instance "
					+ "at it with --spring.data.redis.port={}", binary, HOST, port, port);
			return new EmbeddedRedisServer(server);
		}
		catch (RuntimeException ex) {
			throw new EmbeddedRedisException("Cannot start " + binary + " on port " + port + ": " + ex.getMessage(),
					"Choose another port with --sample.embedded-redis.port, or point the sample at a running Redis with "
							+ "--spring.data.redis.host and --spring.data.redis.port.", ex);
		}
	}

	int port() {
		return this.server.port();
	}

	/** Stops the server and removes its directory; does nothing the second time. */
	synchronized void stop() {
		if (this.server.isRunning()) {
			this.server.close();
			logger.info("Stopped the embedded Redis on {}:{}", HOST, port());
		}
	}

}
