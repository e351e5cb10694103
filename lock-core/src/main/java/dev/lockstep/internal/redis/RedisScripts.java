package dev.lockstep.internal.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;

/**
 * Runs {@link LuaScript}s asynchronously over one Lettuce connection taken from the
 * application's {@link RedisConnectionFactory} (the shared native connection unless the
 * factory is configured otherwise). Scripts go by SHA and are sent in full only on NOSCRIPT,
 * once per server. While Lettuce knows the connection is down (between a disconnect and its
 * reconnect), a call fails at once rather than wait in Lettuce's queue for the command timeout:
 * nothing can succeed then, and each waiting caller holds a thread (see {@link #isDisconnected}).
 * A call that undoes or releases in the background, which no caller waits for, is still left to
 * Lettuce's queue ({@link #runAfterReconnect}): it must reach Redis once it can.
 */
public final class RedisScripts implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RedisScripts.class);

	/**
	 * The Lua functions every script that reads or writes a lock value shares (owner id and fencing
	 * token: {@code holder_of}, {@code clock_token}, {@code format_token}); load it first.
	 */
	public static final String LOCK_VALUES = "/dev/lockstep/internal/redis/lock-values.lua";

	private final LettuceConnectionFactory connectionFactory;

	private final boolean cluster;

	private @Nullable LettuceConnection connection;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	/** Closed for good ({@link #closeForGood()}): a call fails rather than open a connection nothing would close. */
	private volatile boolean closed;

	public RedisScripts(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			throw new IllegalStateException("Lockstep runs on Lettuce, the default client of spring-boot-starter-data-redis, "
					+ "but the RedisConnectionFactory is a " + connectionFactory.getClass().getName());
		}
		this.connectionFactory = lettuce;
		this.cluster = lettuce.isClusterAware();
	}

	/** The connection, opened on first use so that an application can start while Redis is down. */
	private RedisClusterAsyncCommands<byte[], byte[]> commands() {
		RedisClusterAsyncCommands<byte[], byte[]> current = this.commands;
		if (current == null) {
			synchronized (this) {
				current = this.commands;
				if (current == null) {
					Assert.state(!this.closed, "Lockstep's Redis connection is closed (its service stopped)");
					LettuceConnection opened = (LettuceConnection) this.connectionFactory.getConnection();
					this.connection = opened;
					current = opened.getNativeConnection();
					this.commands = current;
				}
			}
		}
		return current;
	}

	/**
	 * Whether Lettuce knows the connection is down: it was open and lost its channel, and Lettuce is
	 * reconnecting (it would hold a command sent now until it reconnects, the application's own
	 * commands included, which this leaves as they are). False before the first call, when the
	 * connection is open, and on a Redis Cluster, whose connection stands for one per node and does
	 * not say that one is down.
	 */
	public boolean isDisconnected() {
		RedisClusterAsyncCommands<byte[], byte[]> current = this.commands;
		return current instanceof RedisAsyncCommands<byte[], byte[]> standalone
				&& !standalone.getStatefulConnection().isOpen();
	}

	/** The failure of a call made while {@link #isDisconnected}, for the feature's own exception. */
	private static RedisConnectionException disconnected() {
		return new RedisConnectionException("the connection is down and Lettuce is reconnecting; Lockstep fails its "
				+ "calls at once meanwhile (see docs/operations.md, Redis outages)");
	}

	/** Whether the connection is to a Redis Cluster, where one script may only touch one slot. */
	public boolean isCluster() {
		return this.cluster;
	}

	/** The cluster hash slot of {@code key}. */
	public static int slot(String key) {
		return SlotHash.getSlot(key);
	}

	/**
	 * Loads {@code scripts} into the server (every master of a cluster) so that calls go by SHA
	 * from the first one: a call that meets NOSCRIPT is sent again in full after later calls, and
	 * would reach Redis out of order. Waits at most {@code wait}, since Redis may be down (then the
	 * first calls load what they need).
	 */
	public void preload(List<LuaScript> scripts, Duration wait) {
		CompletableFuture<Void> loaded = CompletableFuture.supplyAsync(this::commands)
			.thenCompose((commands) -> CompletableFuture.allOf(scripts.stream()
				.map((script) -> commands.scriptLoad(script.source()).toCompletableFuture())
				.toArray(CompletableFuture[]::new)));
		try {
			loaded.get(wait.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException ex) {
			String message = ex.getCause().getMessage();
			if (message != null && message.startsWith("NOPERM")) {
				logger.warn("Lockstep cannot load its scripts into Redis: {} (docs/security.md gives the ACL rule "
						+ "Lockstep needs)", message);
			}
			// else Redis is not reachable (yet): the first calls load what they need
		}
		catch (TimeoutException ex) {
			// Redis is not reachable (yet): the first calls load what they need
		}
	}

	/**
	 * Runs {@code script}; the future fails with the Redis or connection error as is, at once while
	 * the connection is down.
	 */
	public <T> CompletableFuture<T> run(LuaScript script, List<String> keys, List<String> args) {
		return run(script, keys, args, true);
	}

	/**
	 * Runs {@code script} also while the connection is down: Lettuce holds it and sends it once it
	 * reconnects (within its own timeout). For what undoes or releases in the background, with no
	 * caller waiting (a release, a failed attempt's cleanup), which must reach Redis when it can.
	 */
	public <T> CompletableFuture<T> runAfterReconnect(LuaScript script, List<String> keys, List<String> args) {
		return run(script, keys, args, false);
	}

	private <T> CompletableFuture<T> run(LuaScript script, List<String> keys, List<String> args, boolean failFast) {
		byte[][] keyBytes = bytes(keys);
		byte[][] argBytes = bytes(args);
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = commands();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (failFast && isDisconnected()) {
			return CompletableFuture.failedFuture(disconnected());
		}
		ScriptCall<T> call = new ScriptCall<>();
		RedisFuture<T> first = commands.evalsha(script.sha1(), script.output(), keyBytes, argBytes);
		call.sending(first);
		first.whenComplete((value, error) -> {
			if (error == null) {
				call.complete(value);
			}
			else if (!isNoScript(error)) {
				call.completeExceptionally(refusedPermission(script, error));
			}
			else {
				call.sendUnlessCancelled(() -> {
					RedisFuture<T> retry = commands.eval(script.source(), script.output(), keyBytes, argBytes);
					call.sending(retry);
					retry.whenComplete((retried, retryError) -> {
						if (retryError != null) {
							call.completeExceptionally(refusedPermission(script, retryError));
						}
						else {
							call.complete(retried);
						}
					});
				});
			}
		});
		return call;
	}

	/**
	 * {@code WAIT replicas timeout} on this connection: how many replicas have acknowledged every
	 * write this connection made so far (a lock taken by the script just before, and whatever the
	 * replication stream carried before it). Standalone and Sentinel only: on a cluster WAIT would
	 * reach a node that is not the key's master.
	 */
	public CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMillis) {
		if (this.cluster) {
			return CompletableFuture.failedFuture(new IllegalStateException("Waiting for replicas is not supported on a cluster"));
		}
		try {
			RedisClusterAsyncCommands<byte[], byte[]> commands = commands();
			if (isDisconnected()) {
				return CompletableFuture.failedFuture(disconnected());
			}
			return commands.waitForReplication(replicas, timeoutMillis).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * The reply of one script call. Cancelling it (a caller that stopped waiting), or any future
	 * made from it ({@code thenApply} and the like), cancels the command on its way: Lettuce never
	 * sends a cancelled command again after a reconnect (it sends again, until its own timeout, the
	 * commands whose replies a dropped connection lost), and the call is not sent again in full
	 * after a NOSCRIPT. The caller goes on to undo what the call may have done, and a late re-send
	 * would land after that undoing, or after the records that make a call sent again answer as the
	 * first ran out.
	 */
	private static final class ScriptCall<T> extends CompletableFuture<T> {

		private boolean cancelled;

		private @Nullable Future<?> command;

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			Future<?> onItsWay;
			synchronized (this) {
				this.cancelled = true;
				onItsWay = this.command;
			}
			if (onItsWay != null) {
				onItsWay.cancel(false);
			}
			return super.cancel(mayInterruptIfRunning);
		}

		/** The command now carrying the call: cancelled at once if the call was. */
		void sending(Future<?> sent) {
			boolean cancelledAlready;
			synchronized (this) {
				cancelledAlready = this.cancelled;
				this.command = sent;
			}
			if (cancelledAlready) {
				sent.cancel(false);
			}
		}

		/** Sends, under the same monitor as {@link #cancel}: once cancel returns, nothing more is sent. */
		synchronized void sendUnlessCancelled(Runnable send) {
			if (!this.cancelled && !isDone()) {
				send.run();
			}
		}

		@Override
		public <U> CompletableFuture<U> newIncompleteFuture() {
			return new Derived<>(this);
		}

	}

	/** A future made from a script call's reply: cancelling it cancels the call. */
	private static final class Derived<T> extends CompletableFuture<T> {

		private final CompletableFuture<?> source;

		Derived(CompletableFuture<?> source) {
			this.source = source;
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			this.source.cancel(mayInterruptIfRunning);
			return super.cancel(mayInterruptIfRunning);
		}

		@Override
		public <U> CompletableFuture<U> newIncompleteFuture() {
			return new Derived<>(this);
		}

	}

	/**
	 * A refusal by Redis's ACLs, said in terms of what Lockstep needs: inside a script Redis 6 does
	 * not name the command it refused, so the message lists the commands the script runs. Other
	 * errors pass as they are.
	 */
	static Throwable refusedPermission(LuaScript script, Throwable error) {
		Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
		String message = cause.getMessage();
		if (!(cause instanceof RedisCommandExecutionException) || message == null
				|| !(message.startsWith("NOPERM") || message.contains("The user executing the script can't"))) {
			return error;
		}
		return new RedisCommandExecutionException(message + " (the Redis user lacks a permission Lockstep needs: script "
				+ script.name() + " runs " + String.join(" ", script.commands())
				+ " on keys under the key prefix and publishes wake-ups on channels under it; docs/security.md gives "
				+ "the ACL rule)", cause);
	}

	private static boolean isNoScript(Throwable error) {
		Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
		return cause instanceof RedisNoScriptException
				|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"));
	}

	private static byte[][] bytes(List<String> values) {
		byte[][] result = new byte[values.size()][];
		for (int i = 0; i < result.length; i++) {
			result[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return result;
	}

	/**
	 * Releases the connection (the shared native connection itself stays with the factory); a later
	 * call opens it again.
	 */
	@Override
	public synchronized void close() {
		if (this.connection != null) {
			this.connection.close();
			this.connection = null;
			this.commands = null;
		}
	}

	/** Releases the connection, and every later call fails instead of opening it again. */
	public synchronized void closeForGood() {
		this.closed = true;
		close();
	}

}
