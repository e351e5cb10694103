package dev.lockstep.job;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobGuardExecutor;

/** The {@code lockstep.job.run} observation around a guarded run. */
final class JobObservations {

	private JobObservations() {
	}

	/** Runs the body inside a {@code lockstep.job.run} observation (job, outcome, takeover: low cardinality). */
	static @Nullable Object observed(ObservationRegistry observations, GuardedJob job, int attempt, JobGuardExecutor.Body body)
			throws Throwable {
		if (observations.isNoop()) {
			return body.run();
		}
		Observation observation = Observation.createNotStarted("lockstep.job.run", observations)
			.contextualName("job " + job.name())
			.lowCardinalityKeyValue("lockstep.job.name", job.name())
			.lowCardinalityKeyValue("lockstep.job.takeover", Boolean.toString(attempt > 1))
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			Object result = body.run();
			observation.lowCardinalityKeyValue("outcome", "success");
			return result;
		}
		catch (Throwable ex) {
			observation.lowCardinalityKeyValue("outcome", "failure");
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

}
