package dev.lockstep.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link LettuceRequiredException} into Spring Boot's startup failure report: what the
 * application has instead of Lettuce, and the two ways out.
 */
final class LettuceRequiredFailureAnalyzer extends AbstractFailureAnalyzer<LettuceRequiredException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LettuceRequiredException cause) {
		String description = "Lockstep runs on Lettuce, the default client of spring-boot-starter-data-redis, but "
				+ cause.finding() + ". Starting anyway would leave every @DistributedLock, @SerialGroup and @JobGuard "
				+ "method unguarded.";
		String action = "Use Lettuce: keep io.lettuce:lettuce-core on the class path (do not exclude it from "
				+ "spring-boot-starter-data-redis) and let Spring Boot create the connection factory, or define a "
				+ "LettuceConnectionFactory of your own. Or set lockstep.enabled=false to run without Lockstep (its "
				+ "annotations then guard nothing).";
		return new FailureAnalysis(description, action, cause);
	}

}
