package dev.lockstep.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link UnsupportedSettingException} into Spring Boot's startup failure report, as a
 * setting that fails its binding is reported, instead of a bean creation stack trace.
 */
final class UnsupportedSettingFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedSettingException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedSettingException cause) {
		return new FailureAnalysis(cause.problem(), cause.fix(), cause);
	}

}
