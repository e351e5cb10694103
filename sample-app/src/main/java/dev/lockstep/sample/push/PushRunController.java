package dev.lockstep.sample.push;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.lockstep.JobGuardRegistry;

/** Shows which instance ran the push job for which firing, and what the job guard recorded. */
@RestController
class PushRunController {

	private final PushRunLog runs;

	private final JobGuardRegistry guard;

	PushRunController(PushRunLog runs, JobGuardRegistry guard) {
		this.runs = runs;
		this.guard = guard;
	}

	/** The job guard's records of the push job: its last run and last skip, across all instances. */
	@GetMapping("/push/guard")
	Map<String, Object> guard() {
		Map<String, Object> records = new LinkedHashMap<>();
		records.put("instance", this.guard.instanceId());
		records.put("lastRun", this.guard.lastRun("daily-push").orElse(null));
		records.put("lastSkip", this.guard.lastSkip("daily-push").orElse(null));
		records.put("history", this.guard.history("daily-push"));
		return records;
	}

	@GetMapping("/push/runs")
	List<PushRun> runs(@RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
		return this.runs.findLatest(limit);
	}

}
