package dev.lockstep.sample.user;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

import dev.lockstep.fencing.JdbcFencing;

/** The {@code app_user} table. */
@Repository
public class UserRepository {

	private static final String COLUMNS = "select id, pin, name, created_by, created_at from app_user";

	private final JdbcClient jdbc;

	private final JdbcFencing fencing;

	UserRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
		this.fencing = new JdbcFencing(jdbc);
	}

	/** The first user with this pin; there is only ever one while every writer holds the pin's lock. */
	Optional<User> findByPin(String pin) {
		return this.jdbc.sql(COLUMNS + " where pin = ? order by id fetch first 1 row only").param(pin).query(UserRepository::user).optional();
	}

	/** Every row with this pin: more than one would be the duplicate the lock prevents. */
	List<User> findAllByPin(String pin) {
		return this.jdbc.sql(COLUMNS + " where pin = ? order by id").param(pin).query(UserRepository::user).list();
	}

	List<User> findLatest(int limit) {
		return this.jdbc.sql(COLUMNS + " order by id desc fetch first ? rows only").param(limit).query(UserRepository::user).list();
	}

	/** Inserts the user with the fencing token of the lock the caller holds. */
	User insert(String pin, String name, String createdBy, long fencingToken) {
		Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
		KeyHolder keys = new GeneratedKeyHolder();
		this.jdbc.sql("insert into app_user (pin, name, created_by, created_at, fencing_token) values (?, ?, ?, ?, ?)")
			.params(pin, name, createdBy, now, fencingToken)
			.update(keys, "id");
		return new User(keys.getKeyAs(Long.class), pin, name, createdBy, now);
	}

	/**
	 * Renames the user, only if the lock the current thread holds is newer than the one of the
	 * row's last writer: a holder that lost its lock gets a StaleLockException, not a lost update.
	 */
	void rename(String pin, String name) {
		this.fencing.update("app_user", "name = ?", "pin = ?", name, pin);
	}

	private static User user(ResultSet row, int index) throws SQLException {
		return new User(row.getLong("id"), row.getString("pin"), row.getString("name"), row.getString("created_by"),
				row.getObject("created_at", Instant.class));
	}

}
