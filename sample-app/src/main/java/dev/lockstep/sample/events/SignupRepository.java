package dev.lockstep.sample.events;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code signup} table: one row per place taken. */
@Repository
class SignupRepository {

	private static final String COLUMNS = "select event_id, participant, request_id, handled_by, signed_up_at from signup";

	private final JdbcClient jdbc;

	SignupRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Writes the sign-up; one with the same request id for the event (a retry) is the one returned. */
	Signup insert(String eventId, String participant, @Nullable String requestId, String handledBy) {
		Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
		try {
			this.jdbc.sql("insert into signup (event_id, participant, request_id, handled_by, signed_up_at) values (?, ?, ?, ?, ?)")
				.params(eventId, participant, requestId, handledBy, now)
				.update();
			return new Signup(eventId, participant, requestId, handledBy, now);
		}
		catch (DuplicateKeyException ex) {
			return findByRequestId(eventId, requestId).orElseThrow(() -> ex);
		}
	}

	Optional<Signup> findByRequestId(String eventId, @Nullable String requestId) {
		if (requestId == null) {
			return Optional.empty();
		}
		return this.jdbc.sql(COLUMNS + " where event_id = ? and request_id = ?")
			.params(eventId, requestId)
			.query(SignupRepository::signup)
			.optional();
	}

	long count(String eventId) {
		return this.jdbc.sql("select count(*) from signup where event_id = ?").param(eventId).query(Long.class).single();
	}

	private static Signup signup(ResultSet row, int index) throws SQLException {
		return new Signup(row.getString("event_id"), row.getString("participant"), row.getString("request_id"),
				row.getString("handled_by"), row.getObject("signed_up_at", java.time.OffsetDateTime.class).toInstant());
	}

}
