package dev.lockstep.autoconfigure.security;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.LockUnavailableException;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialTask;
import dev.lockstep.testing.RedisBinary;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Lockstep over TLS, configured the Spring Boot way: a redis-server with {@code tls-port} and a
 * certificate from a CA made for the test, and an application with {@code spring.data.redis.ssl}
 * and a PEM SSL bundle trusting that CA. Locks (their wake-ups too) and queues work, every
 * connection of the application is on the TLS port, and an application that does not trust the CA
 * cannot talk to Redis at all.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TlsTests {

	private static Path directory;

	private static TestCertificates certificates;

	private static RedisServer server;

	private static int tlsPort;

	private ConfigurableApplicationContext context;

	@BeforeAll
	static void startTlsRedis() throws Exception {
		directory = Files.createTempDirectory("lockstep-tls-");
		certificates = TestCertificates.create(directory);
		try (ServerSocket socket = new ServerSocket(0)) {
			tlsPort = socket.getLocalPort();
		}
		try {
			// the plain port stays open only for the harness's readiness check and the admin calls below
			server = RedisServer.start("--tls-port", Integer.toString(tlsPort), "--tls-cert-file",
					certificates.serverCertificate().toString(), "--tls-key-file", certificates.serverKey().toString(),
					"--tls-ca-cert-file", certificates.caCertificate().toString(), "--tls-auth-clients", "no");
		}
		catch (IllegalStateException ex) {
			Assumptions.abort(RedisBinary.find() + " cannot serve TLS (built without BUILD_TLS=yes, or libssl "
					+ "missing); set REDIS_SERVER to a redis-server with TLS, such as Debian's: " + ex.getMessage());
		}
	}

	@AfterAll
	static void stopRedis() throws Exception {
		if (server != null) {
			server.close();
		}
		try (var files = Files.list(directory)) {
			for (Path file : files.toList()) {
				Files.delete(file);
			}
		}
		Files.delete(directory);
	}

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void locksWakeUpsAndQueuesWorkOverTlsWithAnSslBundleTrustingThePrivateCa() throws Exception {
		this.context = start("3s", "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + certificates.caCertificate(),
				"spring.data.redis.ssl.bundle=redis");
		LockService locks = this.context.getBean(LockService.class);
		LockHandle held = locks.acquire("ledger", Duration.ZERO);
		CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = locks.acquire("ledger", Duration.ofSeconds(30))) {
				return handle.fencingToken();
			}
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> waiting() == 1);
		held.close();
		assertThat(next.get(20, TimeUnit.SECONDS)).isEqualTo(held.fencingToken() + 1);

		SerialQueue queue = this.context.getBean(SerialQueue.class);
		String task = queue.submit("reports", "tenant-1", "monthly");
		assertThat(queue.task("reports", task)).get().extracting(SerialTask::state).isEqualTo(SerialTask.State.QUEUED);

		// every connection but the one asking is on the TLS port: commands and the wake-up subscription
		List<String> clients = Arrays.stream(String.valueOf(server.call("CLIENT", "LIST")).split("\n"))
			.filter((line) -> !line.contains("cmd=client"))
			.toList();
		assertThat(clients).isNotEmpty().allMatch((line) -> line.contains("laddr=127.0.0.1:" + tlsPort + " "));
		assertThat(clients).anyMatch((line) -> line.contains("sub=1"));
	}

	@Test
	void anApplicationThatDoesNotTrustTheCaCannotReachRedis() {
		// ssl.enabled without a bundle trusts the JVM's CAs, which never signed the test CA
		this.context = start("1s", "spring.data.redis.ssl.enabled=true");
		assertThatExceptionOfType(LockUnavailableException.class)
			.isThrownBy(() -> this.context.getBean(LockService.class).acquire("ledger", Duration.ZERO));
	}

	private long waiting() {
		return ((Number) server.call("LLEN", "tls:{ledger}:queue")).longValue();
	}

	private ConfigurableApplicationContext start(String commandTimeout, String... ssl) {
		String[] properties = new String[ssl.length + 5];
		properties[0] = "spring.data.redis.host=127.0.0.1";
		properties[1] = "spring.data.redis.port=" + tlsPort;
		properties[2] = "spring.data.redis.timeout=" + commandTimeout;
		properties[3] = "lockstep.key-prefix=tls:";
		properties[4] = "lockstep.command-timeout=" + commandTimeout;
		System.arraycopy(ssl, 0, properties, 5, ssl.length);
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).properties(properties).run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

}
