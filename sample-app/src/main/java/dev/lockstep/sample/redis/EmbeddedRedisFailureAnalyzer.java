package dev.lockstep.sample.redis;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a failed embedded Redis as "APPLICATION FAILED TO START" with what to do instead of a stack trace. */
class EmbeddedRedisFailureAnalyzer extends AbstractFailureAnalyzer<EmbeddedRedisException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedRedisException cause) {
		return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
	}

}
