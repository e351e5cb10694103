package dev.lockstep.sample.importing;

import java.util.List;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriComponentsBuilder;

import dev.lockstep.SerialQueue;
import dev.lockstep.SerialTask;
import dev.lockstep.sample.web.ResourceNotFoundException;

/** Delivers import requests over HTTP and shows what ran. */
@RestController
@RequestMapping("/imports")
class ImportController {

	private final ImportService imports;

	private final ImportRunLog runs;

	private final SerialQueue queue;

	ImportController(ImportService imports, ImportRunLog runs, SerialQueue queue) {
		this.imports = imports;
		this.runs = runs;
		this.queue = queue;
	}

	/**
	 * Stores the import in the {@code imports} queue and answers 202 at once, with its status and
	 * where to follow it. The request id is the deduplication id: a request delivered twice within
	 * the window is queued once, and both answers name the same task.
	 */
	@PostMapping
	ResponseEntity<ImportStatus> submit(@Valid @RequestBody ImportRequest request, UriComponentsBuilder uri) {
		String taskId = this.queue.submit(ImportWorker.QUEUE, ImportService.groupOf(request.tenantId(), request.entityCode()),
				request, request.requestId());
		return ResponseEntity.accepted().location(uri.path("/imports/{taskId}").build(taskId)).body(status(taskId));
	}

	/** A queued import: its state, attempts and runs; 404 once it is unknown (never queued, or done long ago). */
	@GetMapping("/{taskId}")
	ImportStatus status(@PathVariable String taskId) {
		SerialTask task = this.queue.task(ImportWorker.QUEUE, taskId)
			.orElseThrow(() -> new ResourceNotFoundException("No import task " + taskId + " (imports done are kept for "
					+ "the deduplication window)"));
		return ImportStatus.of(task, this.runs.findByTask(taskId));
	}

	/** Answers when the request has been processed, after waiting for its group's turn (up to the serial group wait). */
	@PostMapping("/sync")
	ImportRun process(@Valid @RequestBody ImportRequest request) {
		return this.imports.process(request);
	}

	/** The runs of one group, in the order they started. */
	@GetMapping
	List<ImportRun> runs(@RequestParam @NotBlank @Pattern(regexp = ImportRequest.CODE, message = ImportRequest.CODE_MESSAGE) String tenantId,
			@RequestParam @NotBlank @Pattern(regexp = ImportRequest.CODE, message = ImportRequest.CODE_MESSAGE) String entityCode) {
		return this.runs.findByGroup(ImportService.groupOf(tenantId, entityCode));
	}

}
