package dev.lockstep.fencing;

import java.time.Duration;
import java.util.UUID;
import java.util.function.Consumer;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.Version;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.LockHandle;
import dev.lockstep.StaleLockException;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link FencingTokenListener} on Hibernate and H2, with tokens from real locks. */
class JpaFencingTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private EntityManagerFactory entities;

	private RedisLockService locks;

	@BeforeEach
	void start() {
		this.entities = new HibernatePersistenceConfiguration("fencing").managedClass(Account.class)
			.managedClass(Unversioned.class)
			.jdbcUrl("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
			.property("jakarta.persistence.schema-generation.database.action", "create")
			.createEntityManagerFactory();
		this.locks = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (settings) -> {
		});
		this.locks.runLocked("account-1", Duration.ofSeconds(1), () -> inTransaction((em) -> em.persist(new Account(1, "first"))));
	}

	@AfterEach
	void stop() {
		this.entities.close();
		this.locks.stop();
	}

	/**
	 * The stale holder still believes it holds (its lock was lost in Redis, as a failover loses it,
	 * before its watchdog noticed): it read the row, the next holder wrote, then it writes. The
	 * {@code @Version} check refuses it at the write.
	 */
	@Test
	void aHolderThatReadBeforeTheNextHolderWroteFailsAtTheWriteAndTheNextHoldersWriteStays() {
		try (LockHandle stale = this.locks.acquire("account-1", Duration.ofSeconds(1))) {
			EntityManager staleSession = this.entities.createEntityManager();
			staleSession.getTransaction().begin();
			Account readEarly = staleSession.find(Account.class, 1L);
			long nextToken = loseLockAndLetTheNextHolderWrite();
			assertThat(stale.isHeld()).as("the stale holder still believes it holds").isTrue();

			readEarly.holder = "stale";
			assertThatThrownBy(() -> staleSession.getTransaction().commit())
				.satisfies((ex) -> assertThat(ex).hasRootCauseInstanceOf(org.hibernate.StaleStateException.class)
					.isInstanceOfAny(OptimisticLockException.class, jakarta.persistence.RollbackException.class));
			staleSession.close();
			Account stored = read();
			assertThat(stored.holder).isEqualTo("next");
			assertThat(stored.fencingToken).isEqualTo(nextToken);
		}
	}

	/** The same stale holder reading after the next holder wrote is refused before the write. */
	@Test
	void aHolderThatReadsAfterTheNextHolderWroteIsRefusedNamingTheKeyAndBothTokens() {
		try (LockHandle stale = this.locks.acquire("account-1", Duration.ofSeconds(1))) {
			long nextToken = loseLockAndLetTheNextHolderWrite();

			assertThatThrownBy(() -> inTransaction((em) -> em.find(Account.class, 1L).holder = "stale"))
				.isInstanceOfSatisfying(StaleLockException.class, (ex) -> {
					assertThat(ex.getKey()).isEqualTo("account-1");
					assertThat(ex.getFencingToken()).isEqualTo(stale.fencingToken());
					assertThat(ex.getStoredToken()).isEqualTo(nextToken);
				})
				.hasMessageContaining("entity Account");
			assertThat(read().holder).isEqualTo("next");
		}
	}

	/** Under nested locks, a lost innermost lock refuses the write rather than lend it the outer lock's token. */
	@Test
	void underNestedLocksALostInnermostLockRefusesTheWrite() throws Exception {
		try (LockHandle outer = this.locks.acquire("ledger", Duration.ofSeconds(5))) {
			LockHandle inner = JdbcFencingTests.lostLock(this.locks, "account-1");
			assertThat(outer.isHeld()).isTrue();
			assertThatThrownBy(() -> inTransaction((em) -> em.find(Account.class, 1L).holder = "lost inner"))
				.isInstanceOfSatisfying(StaleLockException.class, (ex) -> assertThat(ex.getKey()).isEqualTo("account-1"))
				.hasMessageContaining("entity Account");
			inner.close();
			assertThat(read().holder).isNotEqualTo("lost inner");
		}
	}

	/**
	 * The lock vanishes from Redis (a failover that lost it), and another instance takes it and
	 * writes; returns that holder's token.
	 */
	private long loseLockAndLetTheNextHolderWrite() {
		this.redis.keys().stream().filter((key) -> key.contains("account-1")).forEach(this.redis.template()::delete);
		RedisLockService otherInstance = RedisConnections.lockService(this.redis.factory(), this.redis.prefix(),
				(settings) -> {
				});
		try (LockHandle next = otherInstance.acquire("account-1", Duration.ofSeconds(1))) {
			inTransaction((em) -> em.find(Account.class, 1L).holder = "next");
			return next.fencingToken();
		}
		finally {
			otherInstance.stop();
		}
	}

	@Test
	void writesNeedALockAndAVersion() {
		assertThatIllegalStateException().isThrownBy(() -> inTransaction((em) -> em.find(Account.class, 1L).holder = "bare"))
			.withMessageContaining("Account")
			.withMessageContaining("@DistributedLock");
		this.locks.runLocked("other", Duration.ofSeconds(1), () -> assertThatIllegalStateException()
			.isThrownBy(() -> inTransaction((em) -> em.persist(new Unversioned())))
			.withMessageContaining("Unversioned")
			.withMessageContaining("@Version"));
	}

	private Account read() {
		EntityManager em = this.entities.createEntityManager();
		try {
			return em.find(Account.class, 1L);
		}
		finally {
			em.close();
		}
	}

	private void inTransaction(Consumer<EntityManager> work) {
		EntityManager em = this.entities.createEntityManager();
		try {
			em.getTransaction().begin();
			work.accept(em);
			em.getTransaction().commit();
		}
		catch (RuntimeException ex) {
			if (em.getTransaction().isActive()) {
				em.getTransaction().rollback();
			}
			throw unwrapped(ex);
		}
		finally {
			em.close();
		}
	}

	/** The listener's own exception, when the provider wrapped it. */
	private static RuntimeException unwrapped(RuntimeException ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof StaleLockException || cause instanceof IllegalStateException) {
				return (RuntimeException) cause;
			}
		}
		return ex;
	}

	@Entity
	@EntityListeners(FencingTokenListener.class)
	public static class Account {

		@Id
		Long id;

		@Version
		long version;

		@FencingToken
		Long fencingToken;

		String holder;

		protected Account() {
		}

		Account(long id, String holder) {
			this.id = id;
			this.holder = holder;
		}

	}

	@Entity
	@EntityListeners(FencingTokenListener.class)
	public static class Unversioned {

		@Id
		@jakarta.persistence.GeneratedValue
		Long id;

		@FencingToken
		Long fencingToken;

	}

}
