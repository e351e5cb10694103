package dev.lockstep.sample.importing;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

import dev.lockstep.annotation.SerialGroup;

/**
 * Processes import requests while the caller waits ({@code POST /imports/sync}): one at a time per
 * group ("tenant:entity"), in the order they arrived, across every instance; requests of different
 * groups run in parallel. For callers that need the result; the queued imports
 * ({@link ImportWorker}) hold nobody's thread.
 */
@Service
public class ImportService {

	private final ImportRunLog runs;

	private final String instanceId;

	ImportService(ImportRunLog runs, @Value("${sample.instance-id}") String instanceId) {
		this.runs = runs;
		this.instanceId = instanceId;
	}

	/** Waits for the group's turn (up to {@code lockstep.serial-group.wait-time}), then imports. */
	@SerialGroup(name = "imports", key = "#req.tenantId + ':' + #req.entityCode")
	public ImportRun process(ImportRequest req) {
		long sequence = this.runs.started(req, groupOf(req.tenantId(), req.entityCode()), this.instanceId);
		ImportRun run;
		try {
			simulateWork(req.workMillis());
		}
		finally {
			run = this.runs.finished(sequence);
		}
		return run;
	}

	static String groupOf(String tenantId, String entityCode) {
		return tenantId + ":" + entityCode;
	}

	static void simulateWork(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while importing", ex);
		}
	}

}
