package dev.lockstep.kotlin

import dev.lockstep.JobGuardRegistry
import dev.lockstep.annotation.JobGuard
import dev.lockstep.autoconfigure.LockstepAutoConfiguration
import dev.lockstep.autoconfigure.job.JobGuardAutoConfiguration
import dev.lockstep.testing.TestRedis
import io.micrometer.observation.Observation
import io.micrometer.observation.ObservationHandler
import io.micrometer.observation.tck.TestObservationRegistry
import io.micrometer.observation.tck.TestObservationRegistryAssert
import java.time.Duration
import java.time.Instant
import java.util.UUID
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.delay
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.springframework.beans.factory.annotation.Value
import org.springframework.boot.WebApplicationType
import org.springframework.boot.autoconfigure.ImportAutoConfiguration
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.context.ConfigurableApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.scheduling.annotation.EnableScheduling
import org.springframework.scheduling.annotation.Scheduled
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler

/**
 * A Kotlin `suspend` `@Scheduled` function under `@JobGuard`, on two instances of a Boot
 * application: each cron slot runs once, the guard is held until the function returns (not only
 * until its first suspension), and each run is one `lockstep.job.run` observation spanning it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SuspendJobGuardTests {

	companion object {

		/** Each run: the instance, when it started and when it returned. */
		val runs = ConcurrentLinkedQueue<Triple<String, Instant, Instant>>()

		val inside = AtomicInteger()

		val overlaps = AtomicInteger()

		/** Runs during which their instance's lockstep.job.run observation was open (one, theirs). */
		val observedWhileRunning = AtomicInteger()

	}

	private val prefix = "ktj" + UUID.randomUUID().toString().substring(0, 8) + ":"

	private val running = mutableListOf<ConfigurableApplicationContext>()

	@AfterEach
	fun close() {
		running.forEach { it.close() }
	}

	@Test
	fun eachFiringOfASuspendJobRunsOnceAndHoldsTheGuardUntilItReturns() {
		val a = start("a")
		val b = start("b")
		val registry = b.getBean(JobGuardRegistry::class.java)
		val deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos()
		while (registry.history("EverySecond.tick").size < 4) {
			check(System.nanoTime() < deadline) { "fewer than 4 runs in 30 s: ${registry.history("EverySecond.tick")}" }
			Thread.sleep(50)
		}
		val observations = listOf(a, b).map { it.getBean(TestObservationRegistry::class.java) }
		a.close()
		b.close()
		val history = start("observer", null).getBean(JobGuardRegistry::class.java).history("EverySecond.tick")

		val bySlot = history.groupBy({ it.scheduledTime() }, { it.instance() })
		assertThat(bySlot.values).`as`("runners per slot: %s", bySlot).allSatisfy { assertThat(it).hasSize(1) }
		assertThat(history).hasSizeGreaterThanOrEqualTo(4)
		// the guard's run lasts as long as the function (600 ms), not until its first suspension
		assertThat(history).allSatisfy { assertThat(it.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(550)) }
		assertThat(overlaps).hasValue(0)
		// every run of the function is a recorded run: none ran unguarded
		assertThat(runs.size).isBetween(history.size - 1, history.size + 1)

		// one lockstep.job.run observation per run, on the instance that ran it (one may have been cut short by the close)
		for ((instance, registry) in listOf("a", "b").zip(observations)) {
			TestObservationRegistryAssert.assertThat(registry).forAllObservationsWithNameEqualTo("lockstep.job.run") {
				it.hasLowCardinalityKeyValue("lockstep.job.name", "EverySecond.tick")
			}
			val ran = history.count { it.instance() == instance }
			assertThat(observationCount(registry)).`as`("observations of %s's %d runs", instance, ran).isBetween(ran, ran + 1)
		}
		assertThat(observedWhileRunning.get()).`as`("runs that saw their observation open").isEqualTo(runs.size)
	}

	private fun observationCount(registry: TestObservationRegistry): Int =
		(0..100).first { n -> runCatching {
			TestObservationRegistryAssert.assertThat(registry).hasNumberOfObservationsWithNameEqualTo("lockstep.job.run", n)
		}.isSuccess }

	private fun start(instance: String, jobs: Class<*>? = EverySecond::class.java): ConfigurableApplicationContext {
		val redis = TestRedis.standalone()
		val context = SpringApplicationBuilder(*listOfNotNull(Infrastructure::class.java, jobs).toTypedArray())
			.web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.data.redis.host=${redis.host()}", "spring.data.redis.port=${redis.port()}",
				"lockstep.key-prefix=$prefix", "lockstep.job-guard.instance-id=$instance")
			.run()
		running.add(context)
		return context
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration(DataRedisAutoConfiguration::class, LockstepAutoConfiguration::class,
		JobGuardAutoConfiguration::class, AopAutoConfiguration::class)
	open class Infrastructure {

		@Bean
		open fun openRuns() = OpenRuns()

		@Bean
		open fun observationRegistry(openRuns: OpenRuns): TestObservationRegistry =
			TestObservationRegistry.create().apply { observationConfig().observationHandler(openRuns) }

		@Bean
		open fun taskScheduler(): ThreadPoolTaskScheduler = ThreadPoolTaskScheduler().apply {
			poolSize = 2
			setWaitForTasksToCompleteOnShutdown(false)
			setAwaitTerminationSeconds(0)
		}

	}

	@Configuration(proxyBeanMethods = false)
	open class EverySecond(private val openRuns: OpenRuns,
			@param:Value("\${lockstep.job-guard.instance-id}") private val instance: String) {

		@Scheduled(cron = "* * * * * *")
		@JobGuard(lockAtMostFor = "5s")
		open suspend fun tick() {
			if (inside.incrementAndGet() != 1) {
				overlaps.incrementAndGet()
			}
			val start = Instant.now()
			if (openRuns.count.get() == 1) {
				observedWhileRunning.incrementAndGet()
			}
			try {
				delay(600)
			}
			finally {
				inside.decrementAndGet()
				runs.add(Triple(instance, start, Instant.now()))
			}
		}

	}

	/** How many lockstep.job.run observations are open (started, not stopped) on one instance. */
	class OpenRuns : ObservationHandler<Observation.Context> {

		val count = AtomicInteger()

		override fun supportsContext(context: Observation.Context) = context.name == "lockstep.job.run"

		override fun onStart(context: Observation.Context) {
			count.incrementAndGet()
		}

		override fun onStop(context: Observation.Context) {
			count.decrementAndGet()
		}

	}

}
