package dev.lockstep.queue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import dev.lockstep.testing.TestRedis;

/**
 * The messages published on one channel, as a subscriber of its own hears them, in order; read
 * exactly up to now: {@link #since()} pings over the subscription first, and Redis answers the ping
 * after every message published before it. A message for one instance's workers (the byte 0xFF, a
 * letter, the instance id) reads {@code <letter>:<instance id>}, any other {@code other:<text>}.
 */
final class ChannelMessages implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisPubSubConnection<byte[], byte[]> connection;

	private final ConcurrentLinkedQueue<String> heard = new ConcurrentLinkedQueue<>();

	ChannelMessages(TestRedis.Endpoint redis, String channel) {
		this.client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
		this.connection = this.client.connectPubSub(ByteArrayCodec.INSTANCE);
		this.connection.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(byte[] from, byte[] message) {
				ChannelMessages.this.heard.add(read(message));
			}

		});
		this.connection.sync().subscribe(channel.getBytes(StandardCharsets.UTF_8));
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

	private static String read(byte[] message) {
		if (message.length >= 2 && message[0] == (byte) 0xFF) {
			return (char) message[1] + ":" + new String(message, 2, message.length - 2, StandardCharsets.UTF_8);
		}
		return "other:" + new String(message, StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
