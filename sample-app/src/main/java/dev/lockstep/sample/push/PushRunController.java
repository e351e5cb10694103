package dev.lockstep.sample.push;

import java.util.List;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Shows which instance ran the push job for which firing. */
@RestController
class PushRunController {

	private final PushRunLog runs;

	PushRunController(PushRunLog runs) {
		this.runs = runs;
	}

	@GetMapping("/push/runs")
	List<PushRun> runs(@RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
		return this.runs.findLatest(limit);
	}

}
