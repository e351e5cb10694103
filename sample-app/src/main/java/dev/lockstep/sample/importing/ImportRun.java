package dev.lockstep.sample.importing;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One processed import request, as recorded in the {@code import_run} table.
 * @param sequence the order in which runs started, across all instances
 * @param requestId the request's id
 * @param taskId the queued import's task id, or null for an import run while its caller waited
 * @param attempt the queued import's attempt, or null
 * @param group the request's group, "tenant:entity"
 * @param instanceId the instance that ran it
 * @param startedAt when it started
 * @param finishedAt when it finished, or null while it runs
 */
public record ImportRun(long sequence, String requestId, @Nullable String taskId, @Nullable Integer attempt, String group, String instanceId, Instant startedAt,
		@Nullable Instant finishedAt) {
}
