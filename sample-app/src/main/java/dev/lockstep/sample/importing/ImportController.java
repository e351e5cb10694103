package dev.lockstep.sample.importing;

import java.util.List;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Delivers import requests over HTTP and shows what ran. */
@RestController
@RequestMapping("/imports")
class ImportController {

	private final ImportService imports;

	private final ImportRunLog runs;

	ImportController(ImportService imports, ImportRunLog runs) {
		this.imports = imports;
		this.runs = runs;
	}

	/** Answers when the request has been processed, after waiting for its group's turn. */
	@PostMapping
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
