package dev.lockstep.sample.push;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code push_run} table. */
@Repository
public class PushRunLog {

	private final JdbcClient jdbc;

	PushRunLog(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	void record(String instanceId, Instant scheduledFor, Instant startedAt) {
		this.jdbc.sql("insert into push_run (instance_id, scheduled_for, started_at) values (?, ?, ?)")
			.params(instanceId, scheduledFor, startedAt)
			.update();
	}

	/** The latest runs, newest first. */
	List<PushRun> findLatest(int limit) {
		return this.jdbc.sql("select id, instance_id, scheduled_for, started_at from push_run order by id desc fetch first ? rows only")
			.param(limit)
			.query(PushRunLog::run)
			.list();
	}

	private static PushRun run(ResultSet row, int index) throws SQLException {
		return new PushRun(row.getLong("id"), row.getString("instance_id"), row.getObject("scheduled_for", Instant.class),
				row.getObject("started_at", Instant.class));
	}

}
