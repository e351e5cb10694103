package dev.lockstep.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.LockContext;
import dev.lockstep.LockHandle;
import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;
import dev.lockstep.LockService;
import dev.lockstep.SerialGroups;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.annotation.SerialGroup;
import dev.lockstep.aop.LockAnnotationAdvisor;
import dev.lockstep.autoconfigure.metrics.LockstepMetricsAutoConfiguration;
import dev.lockstep.group.LockServiceSerialGroups;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.testing.RedisCluster;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The auto-configuration's conditions and properties, on a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockstepAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				LockstepMetricsAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(),
				"lockstep.key-prefix=" + uniquePrefix());

	private static String uniquePrefix() {
		return "a" + UUID.randomUUID().toString().substring(0, 8) + ":";
	}

	@Test
	void wiresALockServiceOnTheApplicationsRedisConnection() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockService.class).hasSingleBean(SerialGroups.class)
				.hasSingleBean(LockAnnotationAdvisor.class);
			LockService lockService = context.getBean(LockService.class);
			try (LockHandle handle = lockService.acquire("orders:42", Duration.ZERO)) {
				assertThat(handle.isHeld()).isTrue();
			}
			assertThat(context.getBean(SerialGroups.class).call("tenant-1", Duration.ofSeconds(1), () -> "ran"))
				.isEqualTo("ran");
		});
	}

	@Test
	void everyListenerBeanGetsEachEventOnceInOrderAndAFailingOneStopsNeitherTheOthersNorTheLock() {
		List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.runner.withBean("first", LockListener.class, () -> new LockListener() {
			@Override
			public void acquired(String key, long fencingToken, Duration waited) {
				heard.add("first " + key);
				throw new IllegalStateException("the first listener's own bug");
			}
		}).withBean("second", LockListener.class, () -> new LockListener() {
			@Override
			public void acquired(String key, long fencingToken, Duration waited) {
				heard.add("second " + key);
			}

			@Override
			public void released(String key, Duration held) {
				heard.add("second released " + key);
			}
		}).run((context) -> {
			try (LockHandle handle = context.getBean(LockService.class).acquire("listened", Duration.ZERO)) {
				assertThat(handle.isHeld()).isTrue();
			}
			assertThat(heard).containsExactly("first listened", "second listened", "second released listened");
		});
	}

	@Test
	void bindsTheLockstepProperties() {
		this.runner.withPropertyValues("lockstep.key-prefix=custom-prefix:", "lockstep.lock.lease-time=12s",
				"lockstep.lock.wait-time=0", "lockstep.serial-group.wait-time=2m", "lockstep.advisor-order=42",
				"lockstep.heartbeat-interval=250ms", "lockstep.command-timeout=2s", "lockstep.lock.shutdown-timeout=4s")
			.run((context) -> {
				RedisLockService lockService = context.getBean(RedisLockService.class);
				assertThat(lockService.getKeyPrefix()).isEqualTo("custom-prefix:");
				assertThat(lockService.getLeaseTime()).isEqualTo(Duration.ofSeconds(12));
				assertThat(context.getBean(LockAnnotationAdvisor.class).getOrder()).isEqualTo(42);
				LockstepProperties properties = context.getBean(LockstepProperties.class);
				assertThat(properties.lock().waitTime()).isZero();
				assertThat(properties.serialGroup().waitTime()).isEqualTo(Duration.ofMinutes(2));
				assertThat(properties.heartbeatInterval()).isEqualTo(Duration.ofMillis(250));
				assertThat(properties.commandTimeout()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.lock().shutdownTimeout()).isEqualTo(Duration.ofSeconds(4));
				StringRedisTemplate redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
				redis.afterPropertiesSet();
				try (LockHandle handle = lockService.acquire("k", Duration.ZERO)) {
					assertThat(redis.getExpire("custom-prefix:{k}", TimeUnit.SECONDS)).isBetween(1L, 12L);
				}
			});
	}

	@Test
	void invalidPropertiesStopStartupNamingPropertyAndValue() {
		assertStartupFails("lockstep.lock.lease-time=500ms", "lockstep.lock.lease-time", "must be at least 1s, was 500ms");
		assertStartupFails("lockstep.lock.wait-time=-1s", "lockstep.lock.wait-time", "must not be negative, was -1s");
		assertStartupFails("lockstep.serial-group.wait-time=-5s", "lockstep.serial-group.wait-time", "-5s");
		assertStartupFails("lockstep.key-prefix= ", "lockstep.key-prefix");
		assertStartupFails("lockstep.key-prefix=a{b}:", "lockstep.key-prefix", "a{b}:");
		assertStartupFails("lockstep.heartbeat-interval=0s", "lockstep.heartbeat-interval");
		this.runner.withPropertyValues("lockstep.lock.wait-time=0").run((context) -> assertThat(context).hasNotFailed());
	}

	private void assertStartupFails(String property, String... fragments) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			StringBuilder messages = new StringBuilder();
			for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
				messages.append(cause.getMessage()).append('\n');
			}
			for (String fragment : fragments) {
				assertThat(messages.toString()).contains(fragment);
			}
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnBeans() {
		this.runner.withUserConfiguration(OwnBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(LockService.class).hasSingleBean(SerialGroups.class)
				.hasSingleBean(LockAnnotationAdvisor.class);
			assertThat(context.getBean(LockService.class)).isSameAs(context.getBean("ownLockService"));
			assertThat(context.getBean(SerialGroups.class)).isSameAs(context.getBean("ownSerialGroups"));
			assertThat(context.getBean(LockAnnotationAdvisor.class).getOrder()).isEqualTo(7);
		});
	}

	@Test
	void lockContextShowsTheHandleOfTheApplicationsOwnLockServiceInsideAnAnnotatedMethod() {
		this.runner.withUserConfiguration(InProcessLocking.class).run((context) -> {
			assertThat(context).hasSingleBean(LockService.class).doesNotHaveBean(RedisLockService.class);
			Ledger ledger = context.getBean(Ledger.class);
			assertThat(ledger.post("acct-7")).as("the token LockContext shows inside the method").isEqualTo(101L);
			assertThat(ledger.post("acct-7")).isEqualTo(102L);
			assertThat(LockContext.current()).as("outside the method").isEmpty();
		});
	}

	@Test
	void serialGroupMethodsGoThroughTheApplicationsOwnSerialGroups() {
		this.runner.withUserConfiguration(InProcessLocking.class, RecordedGroups.class).run((context) -> {
			RecordingSerialGroups groups = context.getBean(RecordingSerialGroups.class);
			Dispatch dispatch = context.getBean(Dispatch.class);
			assertThat(dispatch.ship("c-1")).as("the key LockContext shows inside the method")
				.isEqualTo(SerialGroups.LOCK_KEY_PREFIX + "Dispatch.ship:c-1");
			assertThat(dispatch.shipBriefly("c-1")).isEqualTo(SerialGroups.LOCK_KEY_PREFIX + "Dispatch.shipBriefly:c-1");
			assertThat(groups.turns).containsExactly("Dispatch.ship:c-1 renewed", "Dispatch.shipBriefly:c-1 for 10s");

			// the group's turn held elsewhere: the call fails in the method's and the groups' words
			try (LockHandle held = groups.awaitTurn("Dispatch.shipNow:c-2", Duration.ZERO)) {
				assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> dispatch.shipNow("c-2")))
					.isInstanceOf(dev.lockstep.LockNotAcquiredException.class)
					.hasMessageStartingWith("@SerialGroup on LockstepAutoConfigurationTests.Dispatch.shipNow(String): Serial group 'Dispatch.shipNow:c-2' "
							+ "did not reach this call's turn within 0s")
					.hasMessageEndingWith("; the method was not run");
			}
			assertThat(dispatch.shipNow("c-2")).as("the turn is free once closed")
				.isEqualTo(SerialGroups.LOCK_KEY_PREFIX + "Dispatch.shipNow:c-2");
		});
	}

	@Test
	void aHeartbeatIntervalOfAThirdOfTheLeaseOrMoreStopsStartupNamingBothProperties() {
		this.runner.withPropertyValues("lockstep.lock.lease-time=3s", "lockstep.heartbeat-interval=1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("lockstep.heartbeat-interval")
				.hasStackTraceContaining("lockstep.lock.lease-time");
		});
	}

	@Test
	void replicaAcknowledgementsAreBoundAndANegativeCountStopsStartupNamingTheProperty() {
		this.runner.withPropertyValues("lockstep.lock.replica-acknowledgements=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("lockstep.lock.replica-acknowledgements");
		});
		// bound and applied: the shared Redis has no replica, so an acquisition cannot be acknowledged
		this.runner.withPropertyValues("lockstep.lock.replica-acknowledgements=1", "lockstep.command-timeout=400ms")
			.run((context) -> assertThat(org.assertj.core.api.Assertions
				.catchThrowable(() -> context.getBean(LockService.class).acquire("acked", Duration.ZERO)))
				.hasMessageContaining("lockstep.lock.replica-acknowledgements"));
	}

	@Test
	void staysAwayWhenDisabledWithoutRedisOrWithoutLettuce() {
		this.runner.withPropertyValues("lockstep.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockService.class).doesNotHaveBean(LockAnnotationAdvisor.class));
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LockstepAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockService.class));
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LockstepAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.lettuce"))
			.withUserConfiguration(OtherClientConnectionFactory.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockService.class));
	}

	@Test
	void redisWithoutLettuceOrWithAnotherClientStopsStartupWithAFailureAnalysis() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockstepAutoConfiguration.class, LettuceRequiredAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.lettuce"))
			.withUserConfiguration(OtherClientConnectionFactory.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				assertThat(failure).hasRootCauseInstanceOf(LettuceRequiredException.class)
					.hasStackTraceContaining("io.lettuce:lettuce-core is not on the class path")
					.hasStackTraceContaining("a client other than Lettuce");
				FailureAnalysis analysis = new LettuceRequiredFailureAnalyzer().analyze(failure);
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("io.lettuce:lettuce-core is not on the class path")
					.contains("@DistributedLock, @SerialGroup and @JobGuard");
				assertThat(analysis.getAction()).contains("lockstep.enabled=false");
			});
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, FailureHandler.handleMessage((message, failure) -> {
				// Boot's own analyzers that need a bean factory cannot be created here; ours can.
			})))
			.as("failure analyzers registered in META-INF/spring.factories")
			.hasAtLeastOneElementOfType(LettuceRequiredFailureAnalyzer.class);
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LockstepAutoConfiguration.class))
			.withUserConfiguration(OtherClientConnectionFactory.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(LettuceRequiredException.class);
				FailureAnalysis analysis = new LettuceRequiredFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("the application's RedisConnectionFactory is a ")
					.contains("spring.data.redis.client-type=jedis");
			});
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockstepAutoConfiguration.class, LettuceRequiredAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.lettuce"))
			.withUserConfiguration(OtherClientConnectionFactory.class)
			.withPropertyValues("lockstep.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockService.class));
	}

	@Test
	void annotatedBeansAreLockedWithOrWithoutBootsAopAutoConfiguration() {
		ApplicationContextRunner withAop = this.runner
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class));
		for (ApplicationContextRunner runner : List.of(this.runner, withAop)) {
			runner.withUserConfiguration(AnnotatedBean.class).run((context) -> {
				Inventory inventory = context.getBean(Inventory.class);
				assertThat(inventory.reserve("sku-1")).isEqualTo("Inventory.reserve:sku-1");
			});
		}
	}

	@Test
	void recordsMetricsWhenAMeterRegistryExists() {
		this.runner.withUserConfiguration(Metrics.class)
			.withPropertyValues("lockstep.lock.lease-time=1s", "lockstep.heartbeat-interval=100ms")
			.run((context) -> {
				RedisLockService lockService = context.getBean(RedisLockService.class);
				lockService.acquire("metered", Duration.ZERO).close();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("lockstep.lock.wait").tag("outcome", "acquired").timer().count()).isEqualTo(1);
				assertThat(registry.get("lockstep.lock.held").timer().count()).isEqualTo(1);

				// not acquired: held by another instance for the whole (zero) wait
				RedisLockService other = new RedisLockService(context.getBean(RedisConnectionFactory.class));
				other.setKeyPrefix(lockService.getKeyPrefix());
				other.start();
				try (LockHandle held = other.acquire("busy", Duration.ZERO)) {
					assertThat(lockService.tryAcquire("busy", Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
				}
				finally {
					other.stop();
				}
				assertThat(registry.get("lockstep.lock.wait").tag("outcome", "not_acquired").timer().count()).isEqualTo(1);

				// lost: the key vanished from Redis while held
				LockHandle fragile = lockService.acquire("fragile", Duration.ZERO);
				StringRedisTemplate redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
				redis.afterPropertiesSet();
				redis.delete(lockService.getKeyPrefix() + "{fragile}");
				await().atMost(Duration.ofSeconds(10))
					.until(() -> registry.get("lockstep.lock.lost").counter().count() == 1);
				fragile.close();
			});
		this.runner.run((context) -> assertThat(context).doesNotHaveBean("lockstepMetrics"));
		this.runner.withUserConfiguration(Metrics.class)
			.withPropertyValues("lockstep.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("lockstepMetrics"));
	}

	@Test
	void annotatedMethodsAreObservedWithTheLocksNameNeverItsKey() {
		this.runner.withUserConfiguration(AnnotatedBean.class, Observations.class).run((context) -> {
			Inventory inventory = context.getBean(Inventory.class);
			inventory.reserve("sku-1");
			List<Observation.Context> seen = context.getBean(Observations.class).stopped;
			assertThat(seen).extracting(Observation.Context::getName).containsExactly("lockstep.lock.acquire",
					"lockstep.lock.hold");
			assertThat(seen.get(0).getLowCardinalityKeyValue("lockstep.lock.name").getValue()).isEqualTo("Inventory.reserve");
			assertThat(seen.get(0).getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("acquired");
			assertThat(seen.get(1).getLowCardinalityKeyValue("lockstep.lock.kind").getValue()).isEqualTo("lock");
			assertThat(seen).allSatisfy((observed) -> assertThat(observed.getAllKeyValues().stream()
				.map(KeyValue::getValue)).noneMatch((value) -> value.contains("sku-1")));

			// not acquired: another instance holds the key for the whole wait
			RedisLockService lockService = context.getBean(RedisLockService.class);
			RedisLockService other = new RedisLockService(context.getBean(RedisConnectionFactory.class));
			other.setKeyPrefix(lockService.getKeyPrefix());
			other.start();
			seen.clear();
			try (LockHandle held = other.acquire("Inventory.reserve:sku-2", Duration.ZERO)) {
				assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> inventory.reserveNow("sku-2")))
					.isInstanceOf(dev.lockstep.LockNotAcquiredException.class);
			}
			finally {
				other.stop();
			}
			assertThat(seen).singleElement().satisfies((observed) -> {
				assertThat(observed.getName()).isEqualTo("lockstep.lock.acquire");
				assertThat(observed.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("not_acquired");
				assertThat(observed.getError()).isInstanceOf(dev.lockstep.LockNotAcquiredException.class);
			});
		});
	}

	@Test
	void aLostLockIsPublishedAsAnApplicationEvent() {
		this.runner.withPropertyValues("lockstep.lock.lease-time=1s", "lockstep.heartbeat-interval=100ms")
			.withUserConfiguration(LostLocks.class)
			.run((context) -> {
				RedisLockService lockService = context.getBean(RedisLockService.class);
				LockHandle handle = lockService.acquire("fragile", Duration.ZERO);
				StringRedisTemplate redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
				redis.afterPropertiesSet();
				redis.delete(lockService.getKeyPrefix() + "{fragile}");
				List<LockLostEvent> lost = context.getBean(LostLocks.class).events;
				await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
				assertThat(lost.get(0).key()).isEqualTo("fragile");
				assertThat(handle.isHeld()).isFalse();
			});
	}

	@Test
	void worksOnARedisClusterConfiguredTheSpringBootWay() {
		try (RedisCluster cluster = RedisCluster.start()) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodeList())
				.run((context) -> {
					LockService lockService = context.getBean(LockService.class);
					for (int i = 0; i < 20; i++) {
						try (LockHandle handle = lockService.acquire("tenant-" + i, Duration.ZERO)) {
							assertThat(handle.isHeld()).isTrue();
						}
					}
				});
		}
	}

	@Test
	void generatesConfigurationMetadataForEveryProperty() throws Exception {
		String metadata = new ClassPathResource("META-INF/spring-configuration-metadata.json")
			.getContentAsString(StandardCharsets.UTF_8);
		for (String property : List.of("lockstep.enabled", "lockstep.key-prefix", "lockstep.advisor-order",
				"lockstep.command-timeout", "lockstep.heartbeat-interval", "lockstep.lock.wait-time",
				"lockstep.lock.lease-time", "lockstep.serial-group.wait-time", "lockstep.job-guard.enabled",
				"lockstep.job-guard.lock-at-most-for", "lockstep.job-guard.lock-at-least-for",
				"lockstep.job-guard.guard-all-scheduled", "lockstep.job-guard.skew-tolerance",
				"lockstep.job-guard.shutdown-timeout", "lockstep.job-guard.instance-id", "lockstep.counters.enabled",
				"lockstep.counters.idempotency-window", "lockstep.rate-limit.enabled", "lockstep.rate-limit.when-unavailable")) {
			assertThat(metadata).contains("\"name\": \"" + property + "\"");
		}
		assertThat(metadata).contains("Whether Lockstep is enabled.");
		assertThat(metadata).contains("\"defaultValue\": \"refuse\"").contains("\"defaultValue\": \"10m\"");
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		@Bean
		RedisLockService ownLockService(RedisConnectionFactory connectionFactory) {
			RedisLockService lockService = new RedisLockService(connectionFactory);
			lockService.setKeyPrefix(uniquePrefix());
			return lockService;
		}

		@Bean
		SerialGroups ownSerialGroups(RedisLockService ownLockService) {
			return new LockServiceSerialGroups(ownLockService);
		}

		@Bean
		static LockAnnotationAdvisor ownAdvisor(org.springframework.beans.factory.ObjectProvider<LockService> lockService) {
			LockAnnotationAdvisor advisor = new LockAnnotationAdvisor(lockService, Duration.ZERO, Duration.ZERO);
			advisor.setOrder(7);
			return advisor;
		}

	}

	/** An application whose own lock service is not Lockstep's: in-process locks, one semaphore per key. */
	@Configuration(proxyBeanMethods = false)
	static class InProcessLocking {

		@Bean
		LockService inProcessLockService() {
			return new InProcessLockService();
		}

		@Bean
		Ledger ledger() {
			return new Ledger();
		}

	}

	/** Serial groups of the application's own, on its own lock service, that note each turn asked for. */
	@Configuration(proxyBeanMethods = false)
	static class RecordedGroups {

		@Bean
		RecordingSerialGroups recordingSerialGroups(LockService lockService) {
			return new RecordingSerialGroups(new LockServiceSerialGroups(lockService));
		}

		@Bean
		Dispatch dispatch() {
			return new Dispatch();
		}

	}

	static final class RecordingSerialGroups implements SerialGroups {

		final List<String> turns = new CopyOnWriteArrayList<>();

		private final SerialGroups delegate;

		RecordingSerialGroups(SerialGroups delegate) {
			this.delegate = delegate;
		}

		@Override
		public LockHandle awaitTurn(String group, Duration waitTime) {
			this.turns.add(group + " renewed");
			return this.delegate.awaitTurn(group, waitTime);
		}

		@Override
		public LockHandle awaitTurn(String group, Duration waitTime, Duration leaseTime) {
			this.turns.add(group + " for " + leaseTime.toSeconds() + "s");
			return this.delegate.awaitTurn(group, waitTime, leaseTime);
		}

	}

	static class Dispatch {

		@SerialGroup(key = "#customer")
		public String ship(String customer) {
			return LockContext.current().map(LockHandle::key).orElse("not in a turn");
		}

		@SerialGroup(key = "#customer", leaseTime = "10s")
		public String shipBriefly(String customer) {
			return LockContext.current().map(LockHandle::key).orElse("not in a turn");
		}

		@SerialGroup(key = "#customer", waitTime = "0s")
		public String shipNow(String customer) {
			return LockContext.current().map(LockHandle::key).orElse("not in a turn");
		}

	}

	static class Ledger {

		@DistributedLock(key = "#account")
		public long post(String account) {
			return LockContext.current().map(LockHandle::fencingToken).orElse(-1L);
		}

	}

	static final class InProcessLockService implements LockService {

		private final java.util.Map<String, java.util.concurrent.Semaphore> locks = new java.util.concurrent.ConcurrentHashMap<>();

		private final java.util.concurrent.atomic.AtomicLong tokens = new java.util.concurrent.atomic.AtomicLong(100);

		@Override
		public LockHandle acquire(String key, Duration waitTime) {
			java.util.concurrent.Semaphore lock = this.locks.computeIfAbsent(key, (k) -> new java.util.concurrent.Semaphore(1));
			try {
				if (!lock.tryAcquire(waitTime.toMillis(), TimeUnit.MILLISECONDS)) {
					throw new dev.lockstep.LockNotAcquiredException("'" + key + "' is held");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new dev.lockstep.LockNotAcquiredException("interrupted", ex);
			}
			long token = this.tokens.incrementAndGet();
			java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean(true);
			return new LockHandle() {
				@Override
				public String key() {
					return key;
				}

				@Override
				public long fencingToken() {
					return token;
				}

				@Override
				public boolean isHeld() {
					return held.get();
				}

				@Override
				public void close() {
					if (held.compareAndSet(true, false)) {
						lock.release();
					}
				}
			};
		}

		@Override
		public java.util.Optional<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime) {
			try {
				return java.util.Optional.of(acquire(key, waitTime));
			}
			catch (dev.lockstep.LockNotAcquiredException ex) {
				return java.util.Optional.empty();
			}
		}

		@Override
		public <T> T callLocked(String key, Duration waitTime, java.util.concurrent.Callable<T> action) throws Exception {
			try (LockHandle handle = acquire(key, waitTime)) {
				return action.call();
			}
		}

		@Override
		public void runLocked(String key, Duration waitTime, Runnable action) {
			try (LockHandle handle = acquire(key, waitTime)) {
				action.run();
			}
		}

	}

	/** A connection factory of some other client: only its type matters, it is never connected. */
	@Configuration(proxyBeanMethods = false)
	static class OtherClientConnectionFactory {

		@Bean
		RedisConnectionFactory otherClient() {
			return (RedisConnectionFactory) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
						if (method.getDeclaringClass() == Object.class) {
							return switch (method.getName()) {
								case "equals" -> proxy == args[0];
								case "hashCode" -> System.identityHashCode(proxy);
								default -> "another client's connection factory";
							};
						}
						throw new UnsupportedOperationException("not connected in this test");
					});
		}

	}

	static class Inventory {

		@DistributedLock(key = "#sku")
		public String reserve(String sku) {
			return LockContext.current().map(LockHandle::key).orElse("not locked");
		}

		@DistributedLock(name = "Inventory.reserve", key = "#sku", waitTime = "0s")
		public String reserveNow(String sku) {
			return reserve(sku);
		}

	}

	/** An observation registry that keeps what it saw stop. */
	static class Observations {

		final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		@Bean
		ObservationRegistry observationRegistry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new ObservationHandler<>() {
				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

				@Override
				public void onStop(Observation.Context context) {
					Observations.this.stopped.add(context);
				}
			});
			return registry;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AnnotatedBean {

		@Bean
		Inventory inventory() {
			return new Inventory();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Metrics {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	static class LostLocks {

		final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void onLost(LockLostEvent event) {
			this.events.add(event);
		}

	}

}
