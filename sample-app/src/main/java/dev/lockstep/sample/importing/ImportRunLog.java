package dev.lockstep.sample.importing;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code import_run} table. Each write commits on its own, so a run is visible to every
 * instance from the moment it starts.
 */
@Repository
public class ImportRunLog {

	private static final String COLUMNS = "select sequence, request_id, task_id, attempt, group_key, instance_id, started_at, finished_at from import_run";

	private final JdbcClient jdbc;

	ImportRunLog(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Records that {@code request} started on {@code instanceId}; its sequence number. */
	long started(ImportRequest request, String group, String instanceId) {
		return started(request, group, instanceId, null, null);
	}

	/** Records that attempt {@code attempt} of the queued import {@code taskId} started; its sequence number. */
	long started(ImportRequest request, String group, String instanceId, @Nullable String taskId, @Nullable Integer attempt) {
		long sequence = this.jdbc.sql("select next value for import_sequence").query(Long.class).single();
		this.jdbc.sql("insert into import_run (sequence, request_id, task_id, attempt, group_key, instance_id, started_at) "
				+ "values (?, ?, ?, ?, ?, ?, ?)")
			.params(sequence, request.requestId(), taskId, attempt, group, instanceId, now())
			.update();
		return sequence;
	}

	ImportRun finished(long sequence) {
		this.jdbc.sql("update import_run set finished_at = ? where sequence = ?").params(now(), sequence).update();
		return this.jdbc.sql(COLUMNS + " where sequence = ?").param(sequence).query(ImportRunLog::run).single();
	}

	/** The runs of one queued import, in the order they started (more than one when an attempt was cut short). */
	List<ImportRun> findByTask(String taskId) {
		return this.jdbc.sql(COLUMNS + " where task_id = ? order by sequence").param(taskId).query(ImportRunLog::run).list();
	}

	/** The runs of one group, in the order they started. */
	List<ImportRun> findByGroup(String group) {
		return this.jdbc.sql(COLUMNS + " where group_key = ? order by sequence").param(group).query(ImportRunLog::run).list();
	}

	private static Instant now() {
		return Instant.now().truncatedTo(ChronoUnit.MICROS);
	}

	private static ImportRun run(ResultSet row, int index) throws SQLException {
		return new ImportRun(row.getLong("sequence"), row.getString("request_id"), row.getString("task_id"),
				(Integer) row.getObject("attempt"), row.getString("group_key"),
				row.getString("instance_id"), row.getObject("started_at", Instant.class), row.getObject("finished_at", Instant.class));
	}

}
