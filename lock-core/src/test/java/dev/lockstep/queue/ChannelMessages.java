package dev.lockstep.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import dev.lockstep.testing.TestRedis;

/**
 * The messages published on one channel, as a subscriber of its own hears them, in order; read
 * exactly up to now: {@link #since()} pings over the subscription first, and Redis answers the ping
 * after every message published before it.
 */
final class ChannelMessages implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisPubSubConnection<String, String> connection;

	private final ConcurrentLinkedQueue<String> heard = new ConcurrentLinkedQueue<>();

	ChannelMessages(TestRedis.Endpoint redis, String channel) {
		this.client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
		this.connection = this.client.connectPubSub();
		this.connection.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String from, String message) {
				ChannelMessages.this.heard.add(message);
			}

		});
		this.connection.sync().subscribe(channel);
	}

	/** The messages heard since the last call. */
	List<String> since() {
		this.connection.sync().ping();
		List<String> messages = new ArrayList<>();
		for (String message = this.heard.poll(); message != null; message = this.heard.poll()) {
			messages.add(message);
		}
		return messages;
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
