package dev.lockstep.ratelimit;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.aop.framework.autoproxy.InfrastructureAdvisorAutoProxyCreator;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.RateLimitExceededException;
import dev.lockstep.RateLimiter;
import dev.lockstep.annotation.RateLimited;
import dev.lockstep.lock.RedisConnections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RateLimited} on real Spring beans and a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RateLimitedTests {

	private static LettuceConnectionFactory connectionFactory;

	private AnnotationConfigApplicationContext context;

	@BeforeAll
	static void connect() {
		connectionFactory = RedisConnections.standalone();
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private static AnnotationConfigApplicationContext context(Class<?>... configuration) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
				Map.of("test.prefix", RedisConnections.uniquePrefix(), "test.per", "1m")));
		context.register(configuration);
		context.refresh();
		return context;
	}

	@Test
	void theKeyComesFromTheArgumentsAndARefusedCallDoesNotRunTheMethod() {
		this.context = context(Infrastructure.class, Searches.class);
		Searches searches = this.context.getBean(Searches.class);
		searches.byTenant("t1");
		searches.byTenant("t1");
		assertThatThrownBy(() -> searches.byTenant("t1")).isInstanceOfSatisfying(RateLimitExceededException.class, (ex) -> {
			assertThat(ex.getKey()).isEqualTo("Searches.byTenant:t1");
			assertThat(ex.getLimit()).isEqualTo(2);
			assertThat(ex.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
			assertThat(ex.getMessage()).startsWith("@RateLimited on RateLimitedTests.Searches.byTenant(String): rate limit "
					+ "of 2 per 1m for 'Searches.byTenant:t1' exceeded; retry after ");
		});
		searches.byTenant("t2");
		assertThat(searches.runs()).isEqualTo(3);
	}

	@Test
	void repeatedLimitsAreEachEnforced() {
		this.context = context(Infrastructure.class, Searches.class);
		Searches searches = this.context.getBean(Searches.class);
		// burst: 3 per 1m; sustained: 5 per 1m (placeholder)
		for (int i = 0; i < 3; i++) {
			searches.twoLimits("t1");
		}
		assertThatThrownBy(() -> searches.twoLimits("t1")).isInstanceOf(RateLimitExceededException.class)
			.hasMessageContaining("name = \"burst\"");
		RateLimiter limiter = this.context.getBean(RateLimiter.class);
		// the sustained bucket saw 3 (and the refused 4th did not reach it)
		assertThat(limiter.tryAcquire("sustained:t1", 5, Duration.ofMinutes(1)).remaining()).isEqualTo(1);
		assertThat(searches.runs()).isEqualTo(3);
	}

	@Test
	void aCallWaitsForASlotUpToItsWaitTime() {
		this.context = context(Infrastructure.class, Searches.class);
		Searches searches = this.context.getBean(Searches.class);
		// 2 per 600ms: a slot every 300ms, waits of up to 1s
		searches.waiting("t1");
		searches.waiting("t1");
		long started = System.nanoTime();
		searches.waiting("t1");
		long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		assertThat(waited).isBetween(200L, 1000L);
		assertThat(searches.runs()).isEqualTo(3);
		// one that would have to wait longer than its wait time is refused at once
		searches.shortWait("t1");
		started = System.nanoTime();
		assertThatThrownBy(() -> searches.shortWait("t1")).isInstanceOf(RateLimitExceededException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(100));
		assertThat(searches.runs()).isEqualTo(4);
	}

	@Test
	void badAnnotationsFailStartupNamingTheMethod() {
		assertStartupFails(SameNames.class, "@RateLimited on RateLimitedTests.SameNames.run(String)",
				"has the name of another @RateLimited");
		assertStartupFails(ZeroLimit.class, "ZeroLimit.run(String)", "limit must be at least 1, was 0");
		assertStartupFails(BadPer.class, "per 'soon'", "is not a duration");
	}

	private static void assertStartupFails(Class<?> bean, String... fragments) {
		assertThatThrownBy(() -> context(Infrastructure.class, bean).close()).isInstanceOf(BeanCreationException.class)
			.satisfies((ex) -> {
				Throwable cause = ex;
				while (!(cause instanceof IllegalStateException) && cause.getCause() != null) {
					cause = cause.getCause();
				}
				assertThat(cause).isInstanceOf(IllegalStateException.class);
				for (String fragment : fragments) {
					assertThat(cause.getMessage()).contains(fragment);
				}
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Infrastructure {

		@Bean
		static InfrastructureAdvisorAutoProxyCreator autoProxyCreator() {
			InfrastructureAdvisorAutoProxyCreator creator = new InfrastructureAdvisorAutoProxyCreator();
			creator.setProxyTargetClass(true);
			return creator;
		}

		@Bean
		RedisRateLimiter rateLimiter(org.springframework.core.env.Environment environment) {
			RedisRateLimiter limiter = new RedisRateLimiter(connectionFactory);
			limiter.setKeyPrefix(environment.getRequiredProperty("test.prefix"));
			return limiter;
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static RateLimitAdvisor rateLimitAdvisor(ObjectProvider<RateLimiter> rateLimiter) {
			return new RateLimitAdvisor(rateLimiter);
		}

	}

	static class Searches {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@RateLimited(key = "#tenantId", limit = 2, per = "1m")
		public void byTenant(String tenantId) {
			this.runs.incrementAndGet();
		}

		@RateLimited(key = "#p0", limit = 3, per = "1m", name = "burst")
		@RateLimited(key = "#tenantId", limit = 5, per = "${test.per}", name = "sustained")
		public void twoLimits(String tenantId) {
			this.runs.incrementAndGet();
		}

		@RateLimited(key = "#tenantId", limit = 2, per = "600ms", waitTime = "1s")
		public void waiting(String tenantId) {
			this.runs.incrementAndGet();
		}

		@RateLimited(key = "#tenantId", limit = 1, per = "10s", waitTime = "100ms")
		public void shortWait(String tenantId) {
			this.runs.incrementAndGet();
		}

	}

	static class SameNames {

		@RateLimited(key = "#id", limit = 1, per = "1s")
		@RateLimited(key = "#id", limit = 10, per = "1m")
		public void run(String id) {
		}

	}

	static class ZeroLimit {

		@RateLimited(key = "#id", limit = 0, per = "1s")
		public void run(String id) {
		}

	}

	static class BadPer {

		@RateLimited(key = "#id", limit = 1, per = "soon")
		public void run(String id) {
		}

	}

}
