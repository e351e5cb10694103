package dev.lockstep.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between a client and a Redis server that a test can tell to misbehave: add latency
 * to each direction, stall (accept and hold every byte), cut every connection, or refuse new
 * ones, and then heal. Bytes are never reordered or altered, only delayed or dropped with their
 * connection, as a real network does. Plain threads and sockets, so it runs wherever the tests do.
 *
 * <pre class="code">
 * try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
 *     // connect the client to proxy.host() and proxy.port()
 *     proxy.latency(Duration.ZERO, Duration.ofMillis(500)); // replies come 500ms late
 *     proxy.cutAll();                                        // every connection drops
 *     proxy.heal();
 * }
 * </pre>
 */
public final class FaultProxy implements AutoCloseable {

	private final ServerSocket server;

	private final String targetHost;

	private final int targetPort;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final AtomicInteger accepted = new AtomicInteger();

	private final AtomicInteger cuts = new AtomicInteger();

	/** Guards the stall flag; writers wait on it while stalled. */
	private final Object stallMonitor = new Object();

	private volatile long toServerDelayNanos;

	private volatile long toClientDelayNanos;

	private volatile boolean stalled;

	private volatile boolean refusing;

	private volatile boolean closed;

	private FaultProxy(ServerSocket server, String targetHost, int targetPort) {
		this.server = server;
		this.targetHost = targetHost;
		this.targetPort = targetPort;
	}

	/** A proxy on a free loopback port that forwards to {@code host:port}. */
	public static FaultProxy start(String host, int port) {
		try {
			ServerSocket server = new ServerSocket();
			server.setReuseAddress(true);
			server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
			FaultProxy proxy = new FaultProxy(server, host, port);
			daemon(proxy::acceptLoop, "fault-proxy-accept-" + server.getLocalPort()).start();
			return proxy;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not open a proxy port", ex);
		}
	}

	public String host() {
		return this.server.getInetAddress().getHostAddress();
	}

	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Delays every byte by {@code toServer} on its way to Redis and by {@code toClient} on its way
	 * back, from now on (bytes already held keep the delay they arrived with).
	 */
	public void latency(Duration toServer, Duration toClient) {
		this.toServerDelayNanos = toServer.toNanos();
		this.toClientDelayNanos = toClient.toNanos();
	}

	/** Accepts connections and bytes but forwards nothing, until {@link #heal()}. */
	public void stall() {
		this.stalled = true;
	}

	/** Closes every open connection, both sides, as a dropped network path or a restarted peer would. */
	public void cutAll() {
		this.cuts.incrementAndGet();
		for (Link link : this.links) {
			link.close();
		}
	}

	/**
	 * Cuts every connection again and again, at random intervals between {@code shortest} and
	 * {@code longest} (seeded, so a run can be repeated), on a daemon thread, until the returned
	 * handle is closed.
	 */
	public AutoCloseable cutEvery(Duration shortest, Duration longest, long seed) {
		AtomicBoolean cutting = new AtomicBoolean(true);
		Random random = new Random(seed);
		long spread = Math.max(1, longest.toMillis() - shortest.toMillis());
		Thread cutter = new Thread(() -> {
			while (cutting.get()) {
				try {
					Thread.sleep(shortest.toMillis() + (long) (random.nextDouble() * spread));
				}
				catch (InterruptedException ex) {
					return;
				}
				if (cutting.get()) {
					cutAll();
				}
			}
		}, "fault-proxy-cutter");
		cutter.setDaemon(true);
		cutter.start();
		return () -> {
			cutting.set(false);
			cutter.interrupt();
		};
	}

	/** Closes new connections as soon as they are accepted, until {@link #heal()}. */
	public void refuseNew() {
		this.refusing = true;
	}

	/** No latency, no stall, new connections accepted; held bytes flow on. */
	public void heal() {
		this.toServerDelayNanos = 0;
		this.toClientDelayNanos = 0;
		this.refusing = false;
		synchronized (this.stallMonitor) {
			this.stalled = false;
			this.stallMonitor.notifyAll();
		}
	}

	/** Connections open now. */
	public int openConnections() {
		return this.links.size();
	}

	/** Connections accepted since the start (refused ones included). */
	public int acceptedConnections() {
		return this.accepted.get();
	}

	/** How many times {@link #cutAll()} ran. */
	public int cuts() {
		return this.cuts.get();
	}

	@Override
	public void close() {
		this.closed = true;
		heal();
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		cutAll();
	}

	private void acceptLoop() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				return; // closed
			}
			this.accepted.incrementAndGet();
			if (this.refusing) {
				closeQuietly(client);
				continue;
			}
			try {
				Socket upstream = new Socket();
				upstream.connect(new InetSocketAddress(this.targetHost, this.targetPort), 5_000);
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				Link link = new Link(client, upstream);
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				closeQuietly(client);
			}
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// nothing more to do
		}
	}

	private static Thread daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	/** One proxied connection: a reader and a writer per direction. */
	private final class Link {

		private final Socket client;

		private final Socket upstream;

		private volatile boolean open = true;

		Link(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void start() throws IOException {
			pump(this.client.getInputStream(), this.upstream.getOutputStream(), true);
			pump(this.upstream.getInputStream(), this.client.getOutputStream(), false);
		}

		private void pump(InputStream from, OutputStream to, boolean toServer) {
			BlockingQueue<Chunk> held = new LinkedBlockingQueue<>();
			String name = "fault-proxy-" + port() + (toServer ? "-up" : "-down");
			daemon(() -> {
				byte[] buffer = new byte[16 * 1024];
				try {
					int read;
					while ((read = from.read(buffer)) >= 0) {
						long delay = toServer ? FaultProxy.this.toServerDelayNanos : FaultProxy.this.toClientDelayNanos;
						held.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + delay));
					}
				}
				catch (IOException ex) {
					// the connection is gone
				}
				held.add(Chunk.END);
			}, name + "-read").start();
			daemon(() -> {
				try {
					while (this.open) {
						Chunk chunk = held.poll(100, TimeUnit.MILLISECONDS);
						if (chunk == null) {
							continue;
						}
						if (chunk == Chunk.END) {
							break;
						}
						waitUntilForwarding(chunk.dueNanos());
						if (!this.open) {
							break;
						}
						to.write(chunk.bytes());
						to.flush();
					}
				}
				catch (IOException | InterruptedException ex) {
					// the connection is gone
				}
				close();
			}, name + "-write").start();
		}

		private void waitUntilForwarding(long dueNanos) throws InterruptedException {
			while (this.open) {
				synchronized (FaultProxy.this.stallMonitor) {
					if (FaultProxy.this.stalled) {
						FaultProxy.this.stallMonitor.wait(100);
						continue;
					}
				}
				long wait = dueNanos - System.nanoTime();
				if (wait <= 0) {
					return;
				}
				TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(100)));
			}
		}

		void close() {
			this.open = false;
			FaultProxy.this.links.remove(this);
			closeQuietly(this.client);
			closeQuietly(this.upstream);
		}

	}

	private record Chunk(byte[] bytes, long dueNanos) {

		static final Chunk END = new Chunk(new byte[0], 0);

	}

}
