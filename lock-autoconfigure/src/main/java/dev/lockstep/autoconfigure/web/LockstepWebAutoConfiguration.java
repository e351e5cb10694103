package dev.lockstep.autoconfigure.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.lockstep.autoconfigure.LockstepAutoConfiguration;

/**
 * In a Spring MVC or Spring WebFlux application, Lockstep's exceptions that the application does not
 * handle itself answer with a fitting status and a problem detail ({@link LockstepProblemDetails});
 * {@code lockstep.web.problem-details=false} turns it off.
 */
@AutoConfiguration(after = LockstepAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
@ConditionalOnBooleanProperty(name = "lockstep.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "lockstep.web.problem-details", matchIfMissing = true)
@EnableConfigurationProperties(LockstepWebProperties.class)
public final class LockstepWebAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockstepProblemDetails lockstepProblemDetails() {
		return new LockstepProblemDetails();
	}

}
