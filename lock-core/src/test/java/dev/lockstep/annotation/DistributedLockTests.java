package dev.lockstep.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

import dev.lockstep.LockHandle;
import dev.lockstep.LockKeyException;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.LockService;
import dev.lockstep.aop.LockAnnotationAdvisor;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The annotations on real Spring beans, a real H2 transaction manager and a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DistributedLockTests {

	private static LettuceConnectionFactory connectionFactory;

	private AnnotationConfigApplicationContext context;

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@BeforeAll
	static void connect() {
		connectionFactory = RedisConnections.standalone();
	}

	@AfterAll
	static void disconnect() {
		connectionFactory.destroy();
	}

	@BeforeEach
	void startContext() {
		this.context = context(Application.class);
	}

	@AfterEach
	void close() {
		this.threads.shutdownNow();
		if (this.context != null) {
			this.context.close();
		}
	}

	private static AnnotationConfigApplicationContext context(Class<?>... configuration) {
		return context(RedisConnections.uniquePrefix(), configuration);
	}

	/** Two contexts with one prefix are two instances of one application. */
	private static AnnotationConfigApplicationContext context(String prefix, Class<?>... configuration) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
				java.util.Map.of("test.prefix", prefix, "test.wait", "250ms")));
		context.register(configuration);
		context.refresh();
		return context;
	}

	@Test
	void theLockWrapsTheTransactionSoRetriedMessagesCreateOneUser() throws Exception {
		AnnotatedServices.UserInitializer users = this.context.getBean(AnnotatedServices.UserInitializer.class);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<Boolean>> calls = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			calls.add(this.threads.submit(() -> {
				start.await();
				return users.initialise("pin-42");
			}));
		}
		start.countDown();
		int created = 0;
		for (Future<Boolean> call : calls) {
			created += call.get(60, TimeUnit.SECONDS) ? 1 : 0;
		}
		JdbcTemplate jdbc = this.context.getBean(JdbcTemplate.class);
		assertThat(jdbc.queryForObject("select count(*) from app_user where pin = 'pin-42'", Integer.class)).isEqualTo(1);
		assertThat(created).isEqualTo(1);
	}

	@Test
	void keysComeFromParametersByNameAndPositionAndTheTokenIsVisibleInside() {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		locked.byName("t1", "orders");
		locked.byName("t1", "orders");
		assertThat(locked.tokens()).hasSize(2);
		assertThat(locked.tokens().get(1)).isGreaterThan(locked.tokens().get(0)).isPositive();
		assertThat(locked.byRecord(new AnnotatedServices.ImportRequest("t2", "invoices"))).isEqualTo("imports:t2/invoices");
	}

	@Test
	void aLockHeldElsewhereFailsTheCallWithoutRunningIt() throws Exception {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		LockService lockService = this.context.getBean(LockService.class);
		try (LockHandle held = this.threads.submit(() -> lockService.acquire("Locked.byName:t1:orders", Duration.ZERO))
			.get(10, TimeUnit.SECONDS)) {
			assertThatThrownBy(() -> locked.byName("t1", "orders")).isInstanceOf(LockNotAcquiredException.class)
				.hasMessageContaining("Locked.byName(String, String)")
				.hasMessageContaining("'Locked.byName:t1:orders'")
				.hasMessageContaining("waiting 0s");
			try (LockHandle imports = this.threads.submit(() -> lockService.acquire("imports:t3/x", Duration.ZERO))
				.get(10, TimeUnit.SECONDS)) {
				assertThatThrownBy(() -> locked.byRecord(new AnnotatedServices.ImportRequest("t3", "x")))
					.isInstanceOf(LockNotAcquiredException.class)
					.hasMessageContaining("250ms");
			}
		}
		assertThat(locked.runs()).isZero();
	}

	@Test
	void aKeyThatIsNullBlankOrFailingStopsTheCallAndNamesMethodAndExpression() {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		assertThatThrownBy(() -> locked.nullable(null)).isInstanceOf(LockKeyException.class)
			.hasMessageContaining("Locked.nullable(String)")
			.hasMessageContaining("'#value'")
			.hasMessageContaining("null");
		assertThatThrownBy(() -> locked.nullable("  ")).isInstanceOf(LockKeyException.class).hasMessageContaining("blank");
		assertThatThrownBy(() -> locked.failing("ab")).isInstanceOf(LockKeyException.class)
			.hasMessageContaining("Locked.failing(String)")
			.hasMessageContaining("#value.missing");
		assertThat(locked.runs()).isZero();
	}

	/**
	 * SpEL passes on as it is what a method of an argument throws: it is still the key expression
	 * that failed, and the error names the method and the expression.
	 */
	@Test
	void aKeyExpressionWhoseArgumentsMethodThrowsStopsTheCallAndNamesMethodAndExpression() {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		assertThatThrownBy(() -> locked.prefixed("ab")).isInstanceOf(LockKeyException.class)
			.hasMessageContaining("Locked.prefixed(String)")
			.hasMessageContaining("'#value.substring(0, 3)'")
			.hasCauseInstanceOf(StringIndexOutOfBoundsException.class);
		assertThat(locked.runs()).isZero();
		assertThat(locked.prefixed("abcd")).isEqualTo("Locked.prefixed:abc");
	}

	@Test
	void aMethodReturningAStageKeepsTheLockUntilTheStageCompletes() throws Exception {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		LockService lockService = this.context.getBean(LockService.class);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = locked.later("job-1", work);

		assertThatThrownBy(() -> locked.later("job-1", new CompletableFuture<>())).isInstanceOf(LockNotAcquiredException.class);
		assertThat(this.threads.submit(() -> lockService.tryAcquire("Locked.later:job-1", Duration.ZERO, Duration.ofSeconds(1)))
			.get(10, TimeUnit.SECONDS)).isEmpty();

		work.complete("done");
		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		try (LockHandle free = lockService.acquire("Locked.later:job-1", Duration.ofSeconds(5))) {
			assertThat(free.isHeld()).isTrue();
		}
	}

	/**
	 * A read-only stage ({@code minimalCompletionStage()}) cannot be completed from outside, nor can
	 * one made by its {@code newIncompleteFuture()}: the caller's stage must complete all the same,
	 * with the work's value or its failure, after the release, and stay read-only.
	 */
	@Test
	void aMethodReturningAReadOnlyStageKeepsTheLockUntilItCompletesAndThenCompletesTheCallersStage() throws Exception {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		LockService lockService = this.context.getBean(LockService.class);
		CompletableFuture<String> work = new CompletableFuture<>();
		java.util.concurrent.CompletionStage<String> result = locked.laterReadOnly("read-only-1", work);
		assertThat(this.threads.submit(() -> lockService.tryAcquire("Locked.laterReadOnly:read-only-1", Duration.ZERO,
				Duration.ofSeconds(1))).get(10, TimeUnit.SECONDS)).as("lock while the work runs").isEmpty();
		work.complete("done");
		assertThat(result.toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(result.getClass()).isEqualTo(work.minimalCompletionStage().getClass());
		try (LockHandle free = this.threads.submit(() -> lockService.acquire("Locked.laterReadOnly:read-only-1",
				Duration.ofSeconds(5))).get(20, TimeUnit.SECONDS)) {
			assertThat(free.isHeld()).isTrue();
		}

		CompletableFuture<String> failing = new CompletableFuture<>();
		java.util.concurrent.CompletionStage<String> failed = locked.laterReadOnly("read-only-2", failing);
		failing.completeExceptionally(new IllegalStateException("the work failed"));
		assertThatThrownBy(() -> failed.toCompletableFuture().get(10, TimeUnit.SECONDS))
			.isInstanceOf(java.util.concurrent.ExecutionException.class)
			.hasRootCauseMessage("the work failed");
		try (LockHandle free = this.threads.submit(() -> lockService.acquire("Locked.laterReadOnly:read-only-2",
				Duration.ofSeconds(5))).get(20, TimeUnit.SECONDS)) {
			assertThat(free.isHeld()).as("lock after the work failed").isTrue();
		}
	}

	@Test
	void aStageTheCallerTimesOutOrCompletesKeepsTheLockUntilTheWorkEndsAndThenReleasesIt() throws Exception {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		LockService lockService = this.context.getBean(LockService.class);
		List<java.util.function.Consumer<CompletableFuture<String>>> callerActions = List.of(
				(result) -> assertThatThrownBy(() -> result.orTimeout(50, TimeUnit.MILLISECONDS).join())
					.hasCauseInstanceOf(java.util.concurrent.TimeoutException.class),
				(result) -> result.complete("the caller's own value"));
		for (int i = 0; i < callerActions.size(); i++) {
			String id = "stage-" + i;
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = locked.later(id, work);
			callerActions.get(i).accept(result);
			assertThat(result).as("caller's stage %s", i).isDone();
			// The work is still running: the lock stays held until it ends.
			assertThat(this.threads.submit(() -> lockService.tryAcquire("Locked.later:" + id, Duration.ZERO,
					Duration.ofSeconds(1))).get(10, TimeUnit.SECONDS)).as("lock while the work of %s runs", i).isEmpty();
			work.complete("done");
			try (LockHandle free = this.threads.submit(() -> lockService.acquire("Locked.later:" + id, Duration.ofSeconds(5)))
				.get(20, TimeUnit.SECONDS)) {
				assertThat(free.isHeld()).as("lock after the work of %s ended", i).isTrue();
			}
		}
	}

	/**
	 * Issue 24: a caller that cancels, times out or fails the stage it got back must not end the
	 * lock while the method's work (on another thread, as {@code supplyAsync} runs it) goes on. A
	 * second instance calling the same method waits; its work starts only after the first's ended,
	 * and soon after.
	 */
	@Test
	void whateverTheCallerDoesWithItsStageASecondInstanceRunsOnlyAfterTheWorkEnds() throws Exception {
		String prefix = RedisConnections.uniquePrefix();
		try (AnnotationConfigApplicationContext second = context(prefix, Application.class);
				AnnotationConfigApplicationContext first = context(prefix, Application.class)) {
			AnnotatedServices.Locked here = first.getBean(AnnotatedServices.Locked.class);
			AnnotatedServices.Locked there = second.getBean(AnnotatedServices.Locked.class);
			List<java.util.function.Consumer<CompletableFuture<String>>> callerActions = List.of(
					(stage) -> stage.cancel(true), (stage) -> stage.cancel(false),
					(stage) -> stage.orTimeout(100, TimeUnit.MILLISECONDS),
					(stage) -> stage.completeExceptionally(new IllegalStateException("the caller gave up")));
			for (boolean group : List.of(false, true)) {
				for (int i = 0; i < callerActions.size(); i++) {
					String id = (group ? "group-" : "lock-") + i;
					AnnotatedServices.Section section = new AnnotatedServices.Section();
					CompletableFuture<String> own = group ? here.workingInGroup(id, section, 1500, this.threads)
							: here.working(id, section, 1500, this.threads);
					org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> section.inside() == 1);
					Future<String> waiting = this.threads.submit(() -> (group
							? there.workingInGroup(id, section, 10, this.threads) : there.working(id, section, 10, this.threads))
						.get(30, TimeUnit.SECONDS));
					Thread.sleep(200);
					callerActions.get(i).accept(own);
					org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(own::isDone);
					assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("worked");
					assertThat(section.overlaps()).as("%s: overlapping runs", id).isZero();
					assertThat(section.runs).as("%s: runs", id).hasSize(2);
					long firstEnded = section.runs.get(0)[1];
					long secondEntered = section.runs.get(1)[0];
					assertThat(secondEntered).as("%s: the second run enters after the first ended", id).isGreaterThan(firstEnded);
					assertThat(Duration.ofNanos(secondEntered - firstEnded)).as("%s: the lock freed when the work ended", id)
						.isLessThan(Duration.ofSeconds(3));
				}
			}
		}
	}

	/**
	 * A method declared to return a {@code Future} (or {@code Object}) that returns a stage: its
	 * work goes on after the method returned, so the lock is kept until the stage completes, as
	 * for a method declared with a stage. A second caller runs only after the first's work ended.
	 */
	@Test
	void aMethodDeclaredAsFutureThatReturnsAStageKeepsTheLockUntilTheWorkEnds() throws Exception {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		AnnotatedServices.Section section = new AnnotatedServices.Section();
		Future<String> first = locked.workingAsFuture("future-1", section, 1000, this.threads);
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> section.inside() == 1);
		Future<String> second = this.threads.submit(() -> locked.workingAsFuture("future-1", section, 10, this.threads)
			.get(30, TimeUnit.SECONDS));
		assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("worked");
		assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("worked");
		assertThat(section.overlaps()).as("overlapping runs").isZero();
		assertThat(section.runs).hasSize(2);
		assertThat(section.runs.get(1)[0]).as("the second run enters after the first ended")
			.isGreaterThan(section.runs.get(0)[1]);
	}

	/** The control for the tests above: the section notices two runs inside at once. */
	@Test
	void theSectionNoticesOverlapWithoutALock() throws Exception {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		AnnotatedServices.Section section = new AnnotatedServices.Section();
		CompletableFuture<String> one = locked.workingUnlocked("x", section, 500, this.threads);
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> section.inside() == 1);
		CompletableFuture<String> two = locked.workingUnlocked("x", section, 10, this.threads);
		CompletableFuture.allOf(one, two).get(20, TimeUnit.SECONDS);
		assertThat(section.overlaps()).isEqualTo(1);
	}

	@Test
	void anExplicitLeaseBecomesTheLockKeysExpiry() {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		org.springframework.data.redis.core.StringRedisTemplate redis = new org.springframework.data.redis.core.StringRedisTemplate(connectionFactory);
		RedisLockService lockService = this.context.getBean(RedisLockService.class);
		List<Long> ttls = new CopyOnWriteArrayList<>();
		locked.withLease(7L, () -> ttls.add(redis.getExpire(lockService.getKeyPrefix() + "{Locked.withLease:7}", TimeUnit.MILLISECONDS)));
		assertThat(ttls).singleElement().satisfies((ttl) -> assertThat(ttl).isBetween(1L, 5000L));
	}

	@Test
	void serialGroupCallsRunInArrivalOrder() throws Exception {
		AnnotatedServices.Locked locked = this.context.getBean(AnnotatedServices.Locked.class);
		LockService lockService = this.context.getBean(LockService.class);
		AnnotatedServices.ImportRequest request = new AnnotatedServices.ImportRequest("t1", "E7");
		List<String> order = new CopyOnWriteArrayList<>();
		org.springframework.data.redis.core.StringRedisTemplate redis = new org.springframework.data.redis.core.StringRedisTemplate(connectionFactory);
		String queue = this.context.getBean(RedisLockService.class).getKeyPrefix() + "{group:Locked.importGroup:t1:E7}:queue";
		List<Future<?>> calls = new ArrayList<>();
		// held by the test thread: a pooled thread holding it would re-enter it when it runs a call
		try (LockHandle busy = lockService.acquire("group:Locked.importGroup:t1:E7", Duration.ZERO)) {
			for (int i = 0; i < 5; i++) {
				String label = "call-" + i;
				calls.add(this.threads.submit(() -> locked.importGroup(request, order, label)));
				long expected = i + 1;
				org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
					.until(() -> redis.opsForList().size(queue) == expected);
			}
		}
		for (Future<?> call : calls) {
			call.get(30, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly("call-0", "call-1", "call-2", "call-3", "call-4");
	}

	@Test
	void forbiddenKeyExpressionsFailAtStartupNamingMethodAndExpression() {
		this.context.close();
		this.context = null;
		assertStartupFails(AnnotatedServices.TypeReferenceKey.class, "TypeReferenceKey.run(String)", "type reference");
		assertStartupFails(AnnotatedServices.ConstructorKey.class, "ConstructorKey.run(String)", "constructor");
		assertStartupFails(AnnotatedServices.BeanReferenceKey.class, "BeanReferenceKey.run(String)", "bean reference");
		assertStartupFails(AnnotatedServices.UnknownParameterKey.class, "#tenant", "not a parameter");
		assertStartupFails(AnnotatedServices.BadWaitTime.class, "waitTime 'five seconds'", "not a duration");
		// the same rules as the properties and the services, in the same words
		assertStartupFails(AnnotatedServices.NegativeWaitTime.class,
				"@DistributedLock on AnnotatedServices.NegativeWaitTime.run(String): waitTime '-1s' must not be negative, was -1s");
		assertStartupFails(AnnotatedServices.ZeroLeaseTime.class,
				"@SerialGroup on AnnotatedServices.ZeroLeaseTime.run(String): leaseTime '0s' must be at least 1ms, was 0s");
		assertStartupFails(AnnotatedServices.FinalMethod.class, "FinalMethod.run(String)", "final");
	}

	/**
	 * {@code permits = 3}: three callers of one room inside at once, the fourth refused with the
	 * method and the permits named, a caller of another room let in; with two instances.
	 */
	@Test
	void aMethodWithPermitsLetsThatManyCallersOfOneKeyInAtOnceAcrossInstances() throws Exception {
		String prefix = RedisConnections.uniquePrefix();
		try (AnnotationConfigApplicationContext first = context(prefix, Infrastructure.class, AnnotatedServices.Rooms.class);
				AnnotationConfigApplicationContext second = context(prefix, Infrastructure.class,
						AnnotatedServices.Rooms.class)) {
			AnnotatedServices.Rooms one = first.getBean(AnnotatedServices.Rooms.class);
			AnnotatedServices.Rooms two = second.getBean(AnnotatedServices.Rooms.class);
			CountDownLatch leave = new CountDownLatch(1);
			List<Future<Long>> calls = new ArrayList<>();
			calls.add(this.threads.submit(() -> one.enter("hall", leave)));
			calls.add(this.threads.submit(() -> one.enter("hall", leave)));
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> one.inside() == 2);
			calls.add(this.threads.submit(() -> two.enter("hall", leave)));
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> two.inside() == 1);

			assertThatThrownBy(() -> two.enter("hall", new CountDownLatch(0))).isInstanceOf(LockNotAcquiredException.class)
				.hasMessageStartingWith("@DistributedLock on AnnotatedServices.Rooms.enter(String, CountDownLatch): "
						+ "All 3 permits of 'Rooms.enter:hall' are still taken");
			leave.countDown();
			List<Long> tokens = new ArrayList<>();
			for (Future<Long> call : calls) {
				tokens.add(call.get(30, TimeUnit.SECONDS));
			}
			assertThat(tokens).doesNotHaveDuplicates();
			assertThat(one.mostInside() + two.mostInside()).isEqualTo(3);
			// all three permits free again (releases are sent without waiting): a fourth caller gets in at once
			RedisLockService locks = second.getBean(RedisLockService.class);
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
				.until(() -> locks.permitState("Rooms.enter:hall").held() == 0);
			assertThat(two.enter("hall", new CountDownLatch(0))).isGreaterThan(java.util.Collections.max(tokens));
		}
	}

	@Test
	void permitsBelowOneFailAtStartupNamingTheMethod() {
		assertStartupFails(AnnotatedServices.NoPermits.class,
				"@DistributedLock on AnnotatedServices.NoPermits.run(String): permits must be at least 1");
	}

	@Test
	void permitsOnAReactiveMethodFailAtStartupNamingTheMethod() {
		// the reactive path takes a lock: one caller would get in where two were asked for
		assertStartupFails(AnnotatedServices.ReactivePermits.class,
				"@DistributedLock on AnnotatedServices.ReactivePermits.run(String): permits = 2 is not supported");
	}

	private static void assertStartupFails(Class<?> bean, String... fragments) {
		assertThatThrownBy(() -> context(Infrastructure.class, bean).close())
			.isInstanceOf(BeanCreationException.class)
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
	@EnableTransactionManagement(proxyTargetClass = true)
	static class Infrastructure {

		@Bean
		RedisLockService lockService(org.springframework.core.env.Environment environment) {
			RedisLockService service = new RedisLockService(connectionFactory);
			service.setKeyPrefix(environment.getRequiredProperty("test.prefix"));
			return service;
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LockAnnotationAdvisor lockAnnotationAdvisor(ObjectProvider<LockService> lockService) {
			return new LockAnnotationAdvisor(lockService, Duration.ofSeconds(5), Duration.ofSeconds(60));
		}

		@Bean
		DataSource dataSource() {
			return new DriverManagerDataSource("jdbc:h2:mem:" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute("create table app_user (id identity primary key, pin varchar(64) not null)");
			return jdbc;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@org.springframework.context.annotation.Import(Infrastructure.class)
	static class Application {

		@Bean
		AnnotatedServices.UserInitializer userInitializer(JdbcTemplate jdbc) {
			return new AnnotatedServices.UserInitializer(jdbc);
		}

		@Bean
		AnnotatedServices.Locked locked() {
			return new AnnotatedServices.Locked();
		}

	}

}
