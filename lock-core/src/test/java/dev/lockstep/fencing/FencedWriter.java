package dev.lockstep.fencing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.lockstep.LockHandle;
import dev.lockstep.StaleLockException;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;

/**
 * A child JVM holding a lock and writing a row once told to:
 * {@code <host> <port> <lock prefix> <key> <jdbc url> <go file> <fenced>}. Takes the lock (lease
 * 1s, renewed every 200ms), prints {@code HELD <token>}, waits for {@code <go file>} to exist,
 * then sets row 1 of {@code account} to its name and token, through {@link JdbcFencing} when
 * {@code fenced}, with a plain UPDATE otherwise; prints {@code WROTE <rows>} or
 * {@code REFUSED <stored token>} and waits to be killed. It does not look at whether it still
 * holds the lock before writing: a holder paused between that look and its write could not either.
 * So it hands {@link JdbcFencing} its key and token rather than its handle, which would be looked
 * at ({@code isHeld()}) before the statement: the row's token is what this checks.
 */
final class FencedWriter {

	static final Duration LEASE = Duration.ofSeconds(1);

	private FencedWriter() {
	}

	public static void main(String[] args) throws Exception {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));
		LettuceConnectionFactory connection = RedisConnections.standalone(args[0], Integer.parseInt(args[1]));
		RedisLockService locks = RedisConnections.lockService(connection, args[2], (settings) -> {
			settings.setLeaseTime(LEASE);
			settings.setHeartbeatInterval(Duration.ofMillis(200));
		});
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(args[4]));
		Path go = Path.of(args[5]);
		boolean fenced = Boolean.parseBoolean(args[6]);
		LockHandle lock = locks.acquire(args[3], Duration.ofSeconds(10));
		System.out.println("HELD " + lock.fencingToken());
		System.out.flush();
		while (!Files.exists(go)) {
			LockSupport.parkNanos(2_000_000);
		}
		try {
			int rows = fenced ? new JdbcFencing(jdbc).update(lock.key(), lock.fencingToken(), "account", "holder = ?",
					"id = ?", "stale", 1)
					: jdbc.update("update account set holder = ?, fencing_token = ? where id = ?", "stale",
							lock.fencingToken(), 1);
			System.out.println("WROTE " + rows);
		}
		catch (StaleLockException ex) {
			System.out.println("REFUSED " + ex.getStoredToken() + " " + ex.getMessage());
		}
		System.out.flush();
		new CountDownLatch(1).await();
	}

}
