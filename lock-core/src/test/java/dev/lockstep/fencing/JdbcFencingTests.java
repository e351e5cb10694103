package dev.lockstep.fencing;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.lockstep.LockContext;
import dev.lockstep.LockHandle;
import dev.lockstep.StaleLockException;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link JdbcFencing} on a real H2 table with tokens from real locks. */
class JdbcFencingTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private JdbcTemplate jdbc;

	private RedisLockService locks;

	@BeforeEach
	void start() {
		this.jdbc = new JdbcTemplate(new DriverManagerDataSource("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"));
		this.jdbc.execute("create table account (id int primary key, holder varchar(20), note varchar(20), "
				+ "fencing_token bigint, version_token bigint)");
		this.jdbc.update("insert into account (id, holder) values (1, 'nobody')");
		this.locks = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (settings) -> {
		});
	}

	@AfterEach
	void stop() {
		this.locks.stop();
	}

	@Test
	void aLaterHolderWritesAndAnEarlierOneIsRefusedNamingTheKeyAndBothTokens() {
		JdbcFencing fencing = new JdbcFencing(this.jdbc);
		LockHandle first = this.locks.acquire("account-1", Duration.ofSeconds(1));
		first.close();
		long secondToken;
		try (LockHandle second = this.locks.acquire("account-1", Duration.ofSeconds(1))) {
			secondToken = second.fencingToken();
			assertThat(fencing.update(second, "account", "holder = ?, note = 'it''s ?'", "id = ?", "second", 1)).isOne();
		}
		// the first holder's token handed over (its closed handle would be refused before the database: see below)
		assertThatThrownBy(() -> fencing.update(first.key(), first.fencingToken(), "account", "holder = ?", "id = ?", "first", 1))
			.isInstanceOfSatisfying(StaleLockException.class, (ex) -> {
				assertThat(ex.getKey()).isEqualTo("account-1");
				assertThat(ex.getFencingToken()).isEqualTo(first.fencingToken());
				assertThat(ex.getStoredToken()).isEqualTo(secondToken);
			})
			.hasMessageContaining("'account-1'")
			.hasMessageContaining("table account")
			.hasMessageContaining("token " + first.fencingToken())
			.hasMessageContaining("token " + (secondToken));
		assertThat(this.jdbc.queryForMap("select holder, note, fencing_token from account")).containsEntry("HOLDER", "second")
			.containsEntry("NOTE", "it's ?")
			.containsEntry("FENCING_TOKEN", secondToken);
	}

	@Test
	void theSameHolderMayNotWriteTwiceWithOneTokenButANewAcquisitionMay() {
		JdbcFencing fencing = new JdbcFencing(JdbcClient.create(this.jdbc)).withTokenColumn("version_token");
		try (LockHandle lock = this.locks.acquire("account-1", Duration.ofSeconds(1))) {
			assertThat(fencing.update(lock, "account", "holder = ?", "id = ?", "one", 1)).isOne();
			assertThatThrownBy(() -> fencing.update(lock, "account", "holder = ?", "id = ?", "two", 1))
				.isInstanceOf(StaleLockException.class);
		}
		try (LockHandle lock = this.locks.acquire("account-1", Duration.ofSeconds(1))) {
			assertThat(fencing.update(lock, "account", "holder = ?", "id = ?", "three", 1)).isOne();
		}
		assertThat(this.jdbc.queryForObject("select holder from account", String.class)).isEqualTo("three");
	}

	@Test
	void aHandleThatKnowsItNoLongerHoldsItsLockIsRefusedBeforeTheDatabaseIsCalled() throws Exception {
		JdbcFencing fencing = new JdbcFencing(this.jdbc);
		LockHandle lost = lostLock(this.locks, "account-1");
		// the row has no token yet, so the database alone would take the write (the control below shows it)
		assertThatThrownBy(() -> fencing.update(lost, "account", "holder = ?", "id = ?", "lost", 1))
			.isInstanceOfSatisfying(StaleLockException.class, (ex) -> {
				assertThat(ex.getKey()).isEqualTo("account-1");
				assertThat(ex.getFencingToken()).isEqualTo(lost.fencingToken());
				assertThat(ex.getStoredToken()).isNull();
			})
			.hasMessage("Write to table account under lock 'account-1' refused before it was sent: the handle of "
					+ "fencing token " + lost.fencingToken() + " no longer holds the lock (it was closed, or lost: the "
					+ "watchdog found it gone or its lease ran out unconfirmed); nothing was written");
		// a closed handle, and one met through the JdbcClient, the same
		LockHandle closed = this.locks.acquire("account-1", Duration.ofSeconds(1));
		closed.close();
		assertThatThrownBy(() -> new JdbcFencing(JdbcClient.create(this.jdbc)).update(closed, "account", "holder = ?",
				"id = ?", "closed", 1))
			.isInstanceOf(StaleLockException.class)
			.hasMessageContaining("fencing token " + closed.fencingToken() + " no longer holds the lock");
		assertThat(this.jdbc.queryForMap("select holder, fencing_token from account")).containsEntry("HOLDER", "nobody")
			.containsEntry("FENCING_TOKEN", null);
		// the control: the lost holder's token handed over without its handle reaches the database, which takes it
		assertThat(fencing.update(lost.key(), lost.fencingToken(), "account", "holder = ?", "id = ?", "lost", 1)).isOne();
		assertThat(this.jdbc.queryForObject("select holder from account", String.class)).isEqualTo("lost");
	}

	/**
	 * Under nested locks the innermost one fences the write; once it is lost the write is refused,
	 * never sent with the token of the lock taken around it (tokens of two keys are not comparable).
	 */
	@Test
	void underNestedLocksALostInnermostLockRefusesTheWriteRatherThanLendTheOuterLocksToken() throws Exception {
		JdbcFencing fencing = new JdbcFencing(this.jdbc);
		try (LockHandle outer = this.locks.acquire("ledger", Duration.ofSeconds(5))) {
			LockHandle inner = lostLock(this.locks, "account-1");
			assertThat(outer.isHeld()).isTrue();
			assertThat(LockContext.current()).as("the thread's newest lock still held").contains(outer);
			assertThatThrownBy(() -> fencing.update("account", "holder = ?", "id = ?", "lost inner", 1))
				.isInstanceOfSatisfying(StaleLockException.class, (ex) -> {
					assertThat(ex.getKey()).isEqualTo("account-1");
					assertThat(ex.getFencingToken()).isEqualTo(inner.fencingToken());
				});
			assertThat(this.jdbc.queryForMap("select holder, fencing_token from account")).containsEntry("HOLDER", "nobody")
				.containsEntry("FENCING_TOKEN", null);
			inner.close();
			// out of the inner lock's scope, the outer one fences again
			assertThat(fencing.update("account", "holder = ?", "id = ?", "outer", 1)).isOne();
			assertThat(this.jdbc.queryForObject("select fencing_token from account", Long.class)).isEqualTo(outer.fencingToken());
		}
		// a lost handle left open is no lock to write under: outside every lock held, the write still needs one
		LockHandle leaked = lostLock(this.locks, "account-2");
		assertThatIllegalStateException().isThrownBy(() -> fencing.update("account", "holder = ?", "id = ?", "bare", 1))
			.withMessageContaining("@DistributedLock");
		leaked.close();
	}

	/**
	 * A lock taken with a fixed lease that nothing renews, once that lease ran out unconfirmed: its
	 * handle knows the lock is gone (the key may be free in Redis by then).
	 */
	static LockHandle lostLock(RedisLockService locks, String key) throws InterruptedException {
		LockHandle lost = locks.tryAcquire(key, Duration.ofSeconds(1), Duration.ofMillis(200)).orElseThrow();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (lost.isHeld()) {
			assertThat(System.nanoTime() - deadline).as("the lease ran out within 10 s").isNegative();
			Thread.sleep(20);
		}
		return lost;
	}

	@Test
	void insideALockedCallbackTheCurrentThreadsTokenIsUsed() {
		JdbcFencing fencing = new JdbcFencing(this.jdbc);
		this.locks.runLocked("account-1", Duration.ofSeconds(1),
				() -> assertThat(fencing.update("account", "holder = ?", "id = ?", "locked", 1)).isOne());
		assertThatIllegalStateException().isThrownBy(() -> fencing.update("account", "holder = ?", "id = ?", "bare", 1))
			.withMessageContaining("account")
			.withMessageContaining("@DistributedLock");
		assertThat(this.jdbc.queryForObject("select holder from account", String.class)).isEqualTo("locked");
	}

	@Test
	void noMatchingRowUpdatesNothingAndWrongArgumentsAreNamed() {
		JdbcFencing fencing = new JdbcFencing(this.jdbc);
		try (LockHandle lock = this.locks.acquire("account-2", Duration.ofSeconds(1))) {
			assertThat(fencing.update(lock, "account", "holder = ?", "id = ?", "x", 2)).isZero();
			assertThatIllegalArgumentException().isThrownBy(() -> fencing.update(lock, "account", "holder = ?", "id = ?", "x"))
				.withMessageContaining("account")
				.withMessageContaining("1 parameter(s) in its SET clause and 1 in its WHERE clause but 1 argument(s)");
			assertThatIllegalArgumentException().isThrownBy(() -> fencing.update(lock, "account", "holder = ?", " ", "x"))
				.withMessageContaining("WHERE clause");
		}
	}

}
