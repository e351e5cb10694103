package dev.lockstep.sample.importing;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import dev.lockstep.SerialTask;
import dev.lockstep.annotation.SerialQueueListener;

/**
 * Runs the queued imports ({@code POST /imports}) on every instance: one at a time per group
 * ("tenant:entity"), in the order they were submitted, groups in parallel, on whichever instance has
 * a free worker. This is the field report's pipeline (a Redis list, a global queue lock, workers that
 * poll every 2 s, a per-thread key for crash recovery) without its lock, its polling or its stuck
 * messages: an import whose instance dies runs again on another one, first in its group.
 */
@Component
class ImportWorker {

	static final String QUEUE = "imports";

	private final ImportRunLog runs;

	private final String instanceId;

	ImportWorker(ImportRunLog runs, @Value("${sample.instance-id}") String instanceId) {
		this.runs = runs;
		this.instanceId = instanceId;
	}

	@SerialQueueListener(queue = QUEUE, concurrency = "${sample.imports.workers}")
	void run(ImportRequest request, SerialTask task) {
		long sequence = this.runs.started(request, task.group(), this.instanceId, task.id(), task.attempt());
		try {
			ImportService.simulateWork(request.workMillis());
		}
		finally {
			this.runs.finished(sequence);
		}
	}

}
