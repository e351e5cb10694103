package dev.lockstep.console;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The console's security filter chain, with Spring Security on the class path: the console's
 * path only ({@code securityMatcher}), so the application's own chains keep the rest; reading
 * needs the viewer or operator role, acting the operator role; HTTP Basic sign-in, with the
 * application's users. Spring Security's CSRF token is not used on the console's path: its
 * actions require the {@code X-Lockstep-Action} header instead (see {@link ConsoleController}).
 * Ordered first, and registered after Boot's default chain, which it therefore does not replace.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = ConsoleAutoConfiguration.SECURITY_CLASS)
final class ConsoleSecurityConfiguration {

	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE + 10)
	SecurityFilterChain lockstepConsoleSecurity(HttpSecurity http, ConsoleProperties properties) throws Exception {
		String path = properties.path();
		String viewer = properties.viewerRole();
		String operator = properties.operatorRole();
		http.securityMatcher(path, path + "/**")
			.authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET, path, path + "/**")
				.hasAnyRole(viewer, operator)
				.anyRequest()
				.hasRole(operator))
			.httpBasic(Customizer.withDefaults())
			.csrf((csrf) -> csrf.disable());
		return http.build();
	}

}
