package dev.lockstep.testing;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fault proxy does each fault it is told to, against a real Redis, and heals. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultProxyTests {

	private FaultProxy proxy;

	@BeforeEach
	void start() {
		TestRedis.Endpoint redis = TestRedis.standalone();
		this.proxy = FaultProxy.start(redis.host(), redis.port());
	}

	@AfterEach
	void stop() {
		this.proxy.close();
	}

	@Test
	void forwardsBothWaysAndDelaysEachDirectionAsTold() throws Exception {
		try (Resp resp = connect(5_000)) {
			assertThat(resp.call("PING")).isEqualTo("PONG");
			this.proxy.latency(Duration.ofMillis(200), Duration.ofMillis(300));
			long start = System.nanoTime();
			assertThat(resp.call("PING")).isEqualTo("PONG");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(490));
			this.proxy.heal();
			start = System.nanoTime();
			assertThat(resp.call("PING")).isEqualTo("PONG");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(490));
		}
	}

	@Test
	void aStallHoldsEveryByteUntilHealed() throws Exception {
		try (Resp resp = connect(5_000)) {
			assertThat(resp.call("PING")).isEqualTo("PONG");
			this.proxy.stall();
			Thread healer = new Thread(() -> {
				sleep(1_000);
				this.proxy.heal();
			});
			long start = System.nanoTime();
			healer.start();
			assertThat(resp.call("ECHO", "held")).isEqualTo("held");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
			healer.join();
		}
		this.proxy.stall();
		try (Resp stalled = connect(500)) {
			assertThatThrownBy(() -> stalled.call("PING")).isInstanceOf(SocketTimeoutException.class);
		}
		this.proxy.heal();
	}

	@Test
	void aCutDropsEveryOpenConnectionAndNewOnesWork() throws Exception {
		try (Resp resp = connect(5_000)) {
			assertThat(resp.call("PING")).isEqualTo("PONG");
			assertThat(this.proxy.openConnections()).isEqualTo(1);
			this.proxy.cutAll();
			assertThatThrownBy(() -> resp.call("PING")).isInstanceOf(IOException.class);
		}
		assertThat(this.proxy.openConnections()).isZero();
		try (Resp fresh = connect(5_000)) {
			assertThat(fresh.call("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void refusedConnectionsCloseAtOnceUntilHealed() throws Exception {
		this.proxy.refuseNew();
		try (Resp refused = connect(5_000)) {
			assertThatThrownBy(() -> refused.call("PING")).isInstanceOf(IOException.class)
				.isNotInstanceOf(SocketTimeoutException.class);
		}
		this.proxy.heal();
		try (Resp fresh = connect(5_000)) {
			assertThat(fresh.call("PING")).isEqualTo("PONG");
		}
		assertThat(this.proxy.acceptedConnections()).isEqualTo(2);
	}

	private Resp connect(int timeoutMillis) throws IOException {
		return new Resp(this.proxy.host(), this.proxy.port(), timeoutMillis);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
