package dev.lockstep.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The few lines of the Redis protocol that server administration needs (PING, CLUSTER, INFO,
 * SHUTDOWN), so that starting servers does not depend on the client under test.
 */
final class Resp implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	Resp(String host, int port, int timeoutMillis) throws IOException {
		this.socket = new Socket();
		this.socket.connect(new InetSocketAddress(host, port), timeoutMillis);
		this.socket.setSoTimeout(timeoutMillis);
		this.in = new BufferedInputStream(this.socket.getInputStream());
		this.out = this.socket.getOutputStream();
	}

	/** Sends one command; returns a String, Long, List or null; a Redis error becomes an exception. */
	@Nullable Object call(String... args) throws IOException {
		ByteArrayOutputStream request = new ByteArrayOutputStream();
		request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
		for (String arg : args) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
			request.writeBytes(bytes);
			request.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
		}
		this.out.write(request.toByteArray());
		this.out.flush();
		return read();
	}

	private @Nullable Object read() throws IOException {
		int type = this.in.read();
		String line = readLine();
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new IOException("Redis error: " + line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] bytes = this.in.readNBytes(length + 2);
				return new String(bytes, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(read());
				}
				return items;
			}
			case -1:
				throw new IOException("Connection closed by Redis");
			default:
				throw new IOException("Unexpected reply type '" + (char) type + "'");
		}
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int b;
		while ((b = this.in.read()) != '\r') {
			if (b == -1) {
				throw new IOException("Connection closed by Redis");
			}
			line.write(b);
		}
		this.in.read();
		return line.toString(StandardCharsets.UTF_8);
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
