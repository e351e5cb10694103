package dev.lockstep.autoconfigure.job;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobGuardExecutor;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.JobRun;
import dev.lockstep.JobSkip;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.job.JobGuardAdvisor;
import dev.lockstep.job.RedisJobGuard;
import dev.lockstep.job.FiringTrackingConfigurer;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/** The job guard's auto-configuration: conditions and properties. */
class JobGuardAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
				JobGuardAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port());

	@Test
	void wiresTheGuardTheAdvisorAndTheFiringRecorder() {
		this.runner.withUserConfiguration(Nightly.class).withPropertyValues("lockstep.job-guard.instance-id=node-1").run((context) -> {
			assertThat(context).hasSingleBean(RedisJobGuard.class).hasSingleBean(JobGuardAdvisor.class)
				.hasSingleBean(FiringTrackingConfigurer.class).hasSingleBean(dev.lockstep.job.GuardedJobs.class);
			JobGuardRegistry registry = context.getBean(JobGuardRegistry.class);
			assertThat(registry.instanceId()).isEqualTo("node-1");
			assertThat(registry.jobs()).as("the jobs the advisor found, as the guard lists them")
				.extracting(dev.lockstep.GuardedJob::name).containsExactly("nightly");
			assertThat(registry.jobs()).isEqualTo(context.getBean(dev.lockstep.job.GuardedJobs.class).all());
		});
	}

	@Test
	void staysAwayWhenDisabled() {
		this.runner.withPropertyValues("lockstep.job-guard.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(JobGuardRegistry.class).doesNotHaveBean(JobGuardAdvisor.class));
		this.runner.withPropertyValues("lockstep.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(JobGuardRegistry.class));
	}

	@Test
	void theApplicationsOwnRegistryIsTheOneInjectedAndGuardedJobsStillRunGuarded() {
		this.runner.withUserConfiguration(OwnRegistry.class)
			.withPropertyValues("lockstep.key-prefix=own" + System.nanoTime() + ":")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisJobGuard.class);
				assertThat(context.getBean(JobGuardRegistry.class).instanceId()).as("the injected registry").isEqualTo("own");
				// a guarded call (here on demand, as a takeover or a test would make it) runs through Lockstep's guard
				Nightly nightly = context.getBean(Nightly.class);
				nightly.export();
				assertThat(nightly.runs()).isEqualTo(1);
				assertThat(context.getBean(RedisJobGuard.class).lastRun("nightly")).isPresent();
			});
	}

	@Test
	void anApplicationsOwnExecutorRunsTheGuardedFiringsAndLockstepsGuardStaysForTheRecords() throws Exception {
		this.runner.withUserConfiguration(OwnExecutor.class)
			.withPropertyValues("lockstep.key-prefix=exec" + System.nanoTime() + ":")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisJobGuard.class);
				assertThat(context.getBean(JobGuardExecutor.class)).isInstanceOf(OneRunPerJvm.class);
				Blocking blocking = context.getBean(Blocking.class);
				java.util.concurrent.CompletableFuture<Void> first = java.util.concurrent.CompletableFuture
					.runAsync(blocking::work);
				assertThat(blocking.awaitEntered()).isTrue();
				// the application's executor refuses a second firing while the first runs
				blocking.work();
				blocking.release();
				first.get(10, java.util.concurrent.TimeUnit.SECONDS);
				assertThat(blocking.runs()).isEqualTo(1);
				assertThat(context.getBean(OneRunPerJvm.class).firings).containsExactly("blocking:run", "blocking:skipped");
				// Lockstep's guard ran nothing: it stays for the records only
				assertThat(context.getBean(RedisJobGuard.class).lastRun("blocking")).isEmpty();
			});
	}

	@Test
	void guardedRunsAreObservedWithTheJobsNameAndOutcome() {
		java.util.List<io.micrometer.observation.Observation.Context> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();
		io.micrometer.observation.ObservationRegistry observations = io.micrometer.observation.ObservationRegistry.create();
		observations.observationConfig().observationHandler(new io.micrometer.observation.ObservationHandler<>() {
			@Override
			public boolean supportsContext(io.micrometer.observation.Observation.Context context) {
				return true;
			}

			@Override
			public void onStop(io.micrometer.observation.Observation.Context context) {
				stopped.add(context);
			}
		});
		this.runner.withUserConfiguration(Nightly.class)
			.withBean(io.micrometer.observation.ObservationRegistry.class, () -> observations)
			.withPropertyValues("lockstep.key-prefix=obs" + System.nanoTime() + ":")
			.run((context) -> {
				context.getBean(Nightly.class).export();
				assertThat(stopped).filteredOn((observed) -> observed.getName().equals("lockstep.job.run")).singleElement()
					.satisfies((observed) -> {
						assertThat(observed.getLowCardinalityKeyValue("lockstep.job.name").getValue()).isEqualTo("nightly");
						assertThat(observed.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("success");
						assertThat(observed.getLowCardinalityKeyValue("lockstep.job.takeover").getValue()).isEqualTo("false");
					});
			});
	}

	@Test
	void backsOffForTheApplicationsOwnGuard() {
		this.runner.withUserConfiguration(OwnGuard.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisJobGuard.class);
			assertThat(context.getBean(RedisJobGuard.class)).isSameAs(context.getBean("ownGuard"));
		});
	}

	@Test
	void invalidLimitsStopStartupNamingTheProperty() {
		this.runner.withPropertyValues("lockstep.job-guard.lock-at-most-for=500ms").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("lockstep.job-guard.lock-at-most-for");
		});
		this.runner.withPropertyValues("lockstep.job-guard.instance-id=host a").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("lockstep.job-guard.instance-id");
		});
		this.runner.withPropertyValues("lockstep.job-guard.scope=a{b}").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("lockstep.job-guard.scope");
		});
		this.runner.withPropertyValues("spring.application.name=orders{1}").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("spring.application.name")
				.hasStackTraceContaining("lockstep.job-guard.scope");
		});
	}

	static class Nightly {

		private final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

		@dev.lockstep.annotation.JobGuard(name = "nightly")
		public void export() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

	static class Blocking {

		final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);

		final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

		final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

		// the bean is a class proxy: tests reach its state through methods, not fields
		public boolean awaitEntered() throws InterruptedException {
			return this.entered.await(10, java.util.concurrent.TimeUnit.SECONDS);
		}

		public void release() {
			this.release.countDown();
		}

		public int runs() {
			return this.runs.get();
		}

		@dev.lockstep.annotation.JobGuard(name = "blocking")
		public void work() {
			this.runs.incrementAndGet();
			this.entered.countDown();
			try {
				this.release.await(10, java.util.concurrent.TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	/** An application's own executor: a firing runs unless a firing of the same job runs in this JVM. */
	static class OneRunPerJvm implements JobGuardExecutor {

		final java.util.Set<String> running = java.util.concurrent.ConcurrentHashMap.newKeySet();

		final java.util.List<String> firings = new java.util.concurrent.CopyOnWriteArrayList<>();

		@Override
		public Object execute(GuardedJob job, java.time.Instant cronSlot, Body body, Body retry) throws Throwable {
			if (!this.running.add(job.name())) {
				this.firings.add(job.name() + ":skipped");
				return null;
			}
			this.firings.add(job.name() + ":run");
			try {
				return body.run();
			}
			finally {
				this.running.remove(job.name());
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@org.springframework.context.annotation.Import(Blocking.class)
	static class OwnExecutor {

		@Bean
		OneRunPerJvm oneRunPerJvm() {
			return new OneRunPerJvm();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnGuard {

		@Bean
		RedisJobGuard ownGuard(org.springframework.data.redis.connection.RedisConnectionFactory connectionFactory,
				dev.lockstep.job.GuardedJobs jobs) {
			return new RedisJobGuard(connectionFactory, jobs);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@org.springframework.context.annotation.Import(Nightly.class)
	static class OwnRegistry {

		@Bean
		JobGuardRegistry ownRegistry() {
			return new JobGuardRegistry() {
				@Override
				public String instanceId() {
					return "own";
				}

				@Override
				public List<GuardedJob> jobs() {
					return List.of();
				}

				@Override
				public Optional<JobRun> lastRun(String job) {
					return Optional.empty();
				}

				@Override
				public Optional<JobSkip> lastSkip(String job) {
					return Optional.empty();
				}

				@Override
				public List<JobRun> history(String job) {
					return List.of();
				}
			};
		}

	}

}
