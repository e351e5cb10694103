package dev.lockstep.sample.importing;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstep.SerialTask;

/**
 * A queued import as {@code GET /imports/{taskId}} shows it: the task as the queue holds it, and
 * the runs it had so far (more than one when an attempt was cut short by a crash).
 * @param taskId the task's id
 * @param group the import's group, "tenant:entity"
 * @param state QUEUED, RUNNING, DONE or DEAD
 * @param attempt how many times it started
 * @param submittedAt when it was stored
 * @param lastError why its last attempt failed, or null
 * @param runs its runs, in the order they started
 */
public record ImportStatus(String taskId, String group, SerialTask.State state, int attempt, Instant submittedAt,
		@Nullable String lastError, List<ImportRun> runs) {

	static ImportStatus of(SerialTask task, List<ImportRun> runs) {
		return new ImportStatus(task.id(), task.group(), task.state(), task.attempt(), task.submittedAt(), task.lastError(),
				runs);
	}

}
