package dev.lockstep.aop;

import java.time.Duration;

import org.springframework.aop.framework.autoproxy.InfrastructureAdvisorAutoProxyCreator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

import dev.lockstep.LockService;

/**
 * For a test context without Boot: the advisor of {@code @DistributedLock} and {@code @SerialGroup}
 * on the context's {@link LockService}, and a class-proxying auto-proxy creator to apply it. A
 * context with {@code @EnableTransactionManagement} has a proxy creator already and needs only the
 * advisor.
 */
@Configuration(proxyBeanMethods = false)
public class LockAnnotationProxies {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static LockAnnotationAdvisor lockAnnotationAdvisor(ObjectProvider<LockService> lockService) {
		return new LockAnnotationAdvisor(lockService, Duration.ofSeconds(5), Duration.ofSeconds(60));
	}

	@Bean
	static InfrastructureAdvisorAutoProxyCreator autoProxyCreator() {
		InfrastructureAdvisorAutoProxyCreator creator = new InfrastructureAdvisorAutoProxyCreator();
		creator.setProxyTargetClass(true);
		return creator;
	}

}
