package dev.lockstep.fencing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.lockstep.LockHandle;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.JavaProcess;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a lease cannot promise and fencing at the database can: a holder in its own JVM is stopped
 * (SIGSTOP) past its lease, the next holder takes the lock and writes, then the first one resumes
 * and writes too. Through {@link JdbcFencing} its write is refused and the row keeps the next
 * holder's value and token; with a plain UPDATE (the control) the stale write lands.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PausedHolderFencingProcessTests {

	private static final List<String> JVM_OPTIONS = List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	@TempDir
	Path directory;

	private Server database;

	private String url;

	private JdbcTemplate jdbc;

	private RedisLockService locks;

	private JavaProcess holder;

	@BeforeEach
	void startDatabase() throws Exception {
		this.database = Server.createTcpServer("-tcpPort", Integer.toString(freePort()), "-ifNotExists").start();
		this.url = "jdbc:h2:tcp://localhost:" + this.database.getPort() + "/mem:fencing-"
				+ UUID.randomUUID().toString().substring(0, 8) + ";DB_CLOSE_DELAY=-1";
		this.jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url));
		this.jdbc.execute("create table account (id int primary key, holder varchar(20), fencing_token bigint)");
		this.jdbc.update("insert into account (id, holder) values (1, 'nobody')");
		this.locks = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (settings) -> {
		});
	}

	@AfterEach
	void stop() {
		if (this.holder != null) {
			this.holder.kill();
		}
		this.locks.stop();
		this.database.stop();
	}

	@Test
	void aHolderPausedPastItsLeaseHasItsWriteRefusedAndTheNextHoldersWriteStays() throws Exception {
		Outcome outcome = pauseWriteAndResume(true);

		assertThat(outcome.staleLine()).startsWith("REFUSED " + outcome.nextToken());
		assertThat(outcome.row()).containsEntry("HOLDER", "next").containsEntry("FENCING_TOKEN", outcome.nextToken());
	}

	/** The control: without the helper, the same paused holder overwrites the next holder's row. */
	@Test
	void withoutFencingThePausedHoldersStaleWriteLands() throws Exception {
		Outcome outcome = pauseWriteAndResume(false);

		assertThat(outcome.staleLine()).isEqualTo("WROTE 1");
		assertThat(outcome.row()).containsEntry("HOLDER", "stale").containsEntry("FENCING_TOKEN", outcome.staleToken());
	}

	private Outcome pauseWriteAndResume(boolean fenced) throws Exception {
		TestRedis.Endpoint endpoint = this.redis.endpoint();
		Path go = this.directory.resolve("go");
		this.holder = JavaProcess.start("fenced-writer", FencedWriter.class, JVM_OPTIONS, endpoint.host(),
				Integer.toString(endpoint.port()), this.redis.prefix(), "account-1", this.url, go.toString(),
				Boolean.toString(fenced));
		long staleToken = Long.parseLong(this.holder.awaitLine((line) -> line.startsWith("HELD "), Duration.ofSeconds(30))
			.substring("HELD ".length()).trim());

		this.holder.pause();
		long nextToken;
		// the lock comes free once the stopped holder's lease runs out
		try (LockHandle next = this.locks.acquire("account-1", FencedWriter.LEASE.multipliedBy(10))) {
			nextToken = next.fencingToken();
			assertThat(nextToken).isGreaterThan(staleToken);
			assertThat(new JdbcFencing(this.jdbc).update(next, "account", "holder = ?", "id = ?", "next", 1)).isOne();
			Files.createFile(go);
			this.holder.resume();
			String staleLine = this.holder.awaitLine((line) -> line.startsWith("WROTE") || line.startsWith("REFUSED"),
					Duration.ofSeconds(20));
			return new Outcome(staleToken, nextToken, staleLine,
					this.jdbc.queryForMap("select holder, fencing_token from account where id = 1"));
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private record Outcome(long staleToken, long nextToken, String staleLine, Map<String, Object> row) {
	}

}
