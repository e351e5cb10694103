package dev.lockstep.kotlin

import dev.lockstep.LockHandle
import dev.lockstep.LockNotAcquiredException
import dev.lockstep.LockService
import dev.lockstep.ReactiveLockService
import dev.lockstep.annotation.DistributedLock
import dev.lockstep.annotation.SerialGroup
import dev.lockstep.aop.LockAnnotationAdvisor
import dev.lockstep.lock.RedisLockService
import dev.lockstep.testing.TestRedis
import io.micrometer.observation.tck.TestObservationRegistry
import io.micrometer.observation.tck.TestObservationRegistryAssert
import java.time.Duration
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.reactor.awaitSingleOrNull
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.asCoroutineDispatcher
import kotlin.coroutines.Continuation
import kotlin.coroutines.coroutineContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatIllegalStateException
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.springframework.aop.framework.autoproxy.InfrastructureAdvisorAutoProxyCreator
import org.springframework.beans.factory.ObjectProvider
import org.springframework.beans.factory.config.BeanDefinition
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.context.annotation.Role
import org.springframework.core.OverridingClassLoader
import org.springframework.core.env.Environment
import org.springframework.core.env.MapPropertySource
import org.springframework.data.redis.connection.RedisStandaloneConfiguration
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
import org.springframework.data.redis.core.StringRedisTemplate

/**
 * `@DistributedLock` and `@SerialGroup` on Kotlin `suspend` functions, on real Spring proxies and a
 * real Redis: held until the function returns, waited for without a thread, released when the
 * calling coroutine is cancelled, the handle and its fencing token readable inside.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SuspendLockTests {

	companion object {

		private lateinit var connectionFactory: LettuceConnectionFactory

		@BeforeAll
		@JvmStatic
		fun connect() {
			val redis = TestRedis.standalone()
			connectionFactory = LettuceConnectionFactory(RedisStandaloneConfiguration(redis.host(), redis.port()))
			connectionFactory.afterPropertiesSet()
			connectionFactory.start()
		}

		@AfterAll
		@JvmStatic
		fun disconnect() = connectionFactory.destroy()

	}

	private val prefix = "kt" + UUID.randomUUID().toString().substring(0, 8) + ":"

	private val observations = TestObservationRegistry.create()

	private lateinit var context: AnnotationConfigApplicationContext

	private lateinit var sections: Sections

	private lateinit var counts: Counts

	private lateinit var locks: RedisLockService

	@BeforeEach
	fun start() {
		context = AnnotationConfigApplicationContext()
		context.environment.propertySources.addFirst(MapPropertySource("test", mapOf<String, Any>("test.prefix" to prefix)))
		context.beanFactory.registerSingleton("observationRegistry", observations)
		context.register(Application::class.java)
		context.refresh()
		sections = context.getBean(Sections::class.java)
		counts = context.getBean(Counts::class.java)
		locks = context.getBean(RedisLockService::class.java)
	}

	@AfterEach
	fun close() {
		context.close()
		val redis = StringRedisTemplate(connectionFactory)
		redis.delete(redis.keys("$prefix*"))
	}

	/**
	 * While the lock is held elsewhere, 100 calls from coroutines on a dispatcher of two threads all
	 * queue in Redis at once and the dispatcher's threads stay free: a wait on a thread would queue
	 * two at most. Once the lock is free each gets its turn, one at a time, and each reads a higher
	 * fencing token than the one before it.
	 */
	@Test
	fun aHundredSuspendedCallersOnTwoThreadsAllQueueWithoutBlockingThemAndAllGetTheirTurn() = onTwoThreads { threads ->
		val holder = locks.acquire("section:k", Duration.ofSeconds(1))
		val calls = (1..100).map { async(threads) { sections.section("k") } }
		waitUntil { locks.keyState("section:k").waitersInAll() == 100L }
		assertThat(withContext(threads) { Thread.currentThread().name }).startsWith("two-threads")
		assertThat(counts.entered).hasValue(0)

		holder.close()
		val tokens = calls.awaitAll()

		assertThat(counts.entered).hasValue(100)
		assertThat(counts.overlaps).`as`("overlaps").hasValue(0)
		assertThat(tokens).doesNotHaveDuplicates().allSatisfy { assertThat(it).isGreaterThan(holder.fencingToken()) }
		assertThat(counts.tokensInEntryOrder).hasSize(100).isSorted().doesNotHaveDuplicates()
		assertThat(ReactiveLockService.current().awaitSingleOrNull()).`as`("a handle outside the function").isNull()
	}

	/** The overlap count above means something: the same calls without the annotation overlap. */
	@Test
	fun theSameCallsWithoutTheAnnotationOverlap() = onTwoThreads { threads ->
		(1..100).map { async(threads) { sections.unlockedSection("k") } }.awaitAll()
		assertThat(counts.overlaps.get()).isPositive()
	}

	@Test
	fun aSerialGroupRunsOneSuspendedCallAtATime() = onTwoThreads { threads ->
		val tokens = (1..20).map { async(threads) { sections.groupTurn("g") } }.awaitAll()
		assertThat(counts.entered).hasValue(20)
		assertThat(counts.overlaps).hasValue(0)
		assertThat(tokens).doesNotHaveDuplicates()
		assertThat(counts.tokensInEntryOrder).isSorted()
	}

	@Test
	fun aCoroutineCancelledWhileItWaitsLeavesTheQueueAndTheFunctionNeverRuns() = onTwoThreads { threads ->
		val holder = locks.acquire("section:w", Duration.ofSeconds(1))
		val waiting = launch(threads) { sections.section("w") }
		waitUntil { locks.keyState("section:w").waitersInAll() == 1L }

		waiting.cancelAndJoin()

		waitUntil { locks.keyState("section:w").waitersInAll() == 0L }
		holder.close()
		waitUntil { locks.keyState("section:w").holderInstance() == null }
		assertThat(counts.entered).hasValue(0)
	}

	@Test
	fun aCoroutineCancelledWhileItHoldsTheLockReleasesIt() = onTwoThreads { threads ->
		val started = CompletableDeferred<LockHandle>()
		val cancelledInside = AtomicBoolean()
		val holding = launch(threads) { sections.endless("c", started, cancelledInside) }
		val handle = withTimeout(5_000) { started.await() }
		assertThat(locks.keyState("endless:c").holderInstance()).isNotNull()
		assertThat(locks.keyState("endless:c").fencingToken()).isEqualTo(handle.fencingToken())

		holding.cancelAndJoin()

		waitUntil { locks.keyState("endless:c").holderInstance() == null }
		waitUntil { cancelledInside.get() }
		locks.acquire("endless:c", Duration.ofSeconds(1)).use { next ->
			assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken())
		}
	}

	@Test
	fun aFlowReturnedBySuspendFunctionIsCollectedUnderTheLock() = onTwoThreads { threads ->
		val heldWhileCollected = withContext(threads) { sections.ticks("f").toList() }
		assertThat(heldWhileCollected).containsExactly(true, true, true)
		waitUntil { locks.keyState("ticks:f").holderInstance() == null }
	}

	@Test
	fun aWaitThatRunsOutFailsNamingTheFunctionAndTheObservationsSpanTheHold() = onTwoThreads { threads ->
		assertThat(withContext(threads) { sections.section("o") }).isPositive()
		assertThat(counts.holdObservedInside).`as`("the hold's observation was running inside").isTrue()
		TestObservationRegistryAssert.assertThat(observations)
			.hasObservationWithNameEqualTo("lockstep.lock.hold").that()
			.hasLowCardinalityKeyValue("lockstep.lock.name", "section")
			.hasLowCardinalityKeyValue("lockstep.lock.kind", "lock")
			.hasBeenStopped()
			.backToTestObservationRegistry()
			.hasObservationWithNameEqualTo("lockstep.lock.acquire").that()
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasBeenStopped()

		locks.acquire("section:o", Duration.ofSeconds(1)).use {
			val failure = runCatching { withContext(threads) { sections.impatient("o") } }.exceptionOrNull()
			assertThat(failure).isInstanceOf(LockNotAcquiredException::class.java)
				.hasMessageContaining("@DistributedLock on SuspendLockTests.Sections.impatient(")
				.hasMessageContaining("the method was not run")
		}
	}

	/**
	 * Without kotlinx-coroutines-reactor, Spring's proxies would call a suspend function as a plain
	 * method that returns at its first suspension: the annotation would guard nothing, so startup
	 * fails, naming the function. The same class where the library is present is accepted.
	 */
	@Test
	fun withoutKotlinxCoroutinesReactorASuspendFunctionFailsStartupNamingIt() {
		val advisor = LockAnnotationAdvisor(context.getBeanProvider(LockService::class.java), Duration.ofSeconds(5),
			Duration.ofSeconds(60))
		val hidden = WithoutCoroutinesReactor(javaClass.classLoader).loadClass(Sections::class.java.name)
		assertThat(hidden).isNotSameAs(Sections::class.java)
		val section = hidden.getMethod("section", String::class.java, Continuation::class.java)

		assertThatIllegalStateException()
			.isThrownBy { advisor.pointcut.methodMatcher.matches(section, hidden) }
			.withMessageContaining("@DistributedLock on SuspendLockTests.Sections.section(")
			.withMessageContaining("kotlinx-coroutines-reactor")
		val present = Sections::class.java.getMethod("section", String::class.java, Continuation::class.java)
		assertThat(advisor.pointcut.methodMatcher.matches(present, Sections::class.java)).isTrue()
	}

	/** Loads the sections itself, and finds no kotlinx-coroutines-reactor. */
	private class WithoutCoroutinesReactor(parent: ClassLoader) : OverridingClassLoader(parent) {

		override fun isEligibleForOverriding(className: String) = className == Sections::class.java.name

		override fun loadClass(name: String, resolve: Boolean): Class<*> {
			if (name.startsWith("kotlinx.coroutines.reactor.")) {
				throw ClassNotFoundException(name)
			}
			return super.loadClass(name, resolve)
		}

	}

	/** Runs the test in a coroutine that may start others on a dispatcher of two threads, every wait bounded. */
	private fun onTwoThreads(test: suspend CoroutineScope.(CoroutineDispatcher) -> Unit) {
		val executor = Executors.newFixedThreadPool(2) { runnable -> Thread(runnable, "two-threads") }
		try {
			runBlocking {
				withTimeout(50_000) { test(executor.asCoroutineDispatcher()) }
			}
		}
		finally {
			executor.shutdownNow()
		}
	}

	private suspend fun waitUntil(condition: () -> Boolean) {
		withTimeout(10_000) {
			while (!condition()) {
				delay(10)
			}
		}
	}

	/** What the sections saw; apart from them, since a class proxy has fields of its own. */
	class Counts(val observations: TestObservationRegistry) {

		val inside = AtomicInteger()

		val entered = AtomicInteger()

		val overlaps = AtomicInteger()

		val tokensInEntryOrder = CopyOnWriteArrayList<Long>()

		val holdObservedInside = AtomicBoolean()

	}

	/** Suspend functions whose sections count how many are inside at once. */
	open class Sections(private val counts: Counts) {

		@DistributedLock(name = "section", key = "#key", waitTime = "30s")
		open suspend fun section(key: String): Long {
			val handle = ReactiveLockService.current().awaitSingleOrNull() ?: error("no handle in the coroutine")
			// the same handle, straight from the coroutine's Reactor context
			check(coroutineContext[ReactorContext]?.context?.get<LockHandle>(ReactiveLockService.CONTEXT_KEY) === handle)
			counts.holdObservedInside.compareAndSet(false, runCatching {
				TestObservationRegistryAssert.assertThat(counts.observations)
					.hasObservationWithNameEqualTo("lockstep.lock.hold").that().hasBeenStarted().isNotStopped()
			}.isSuccess)
			return inside(handle)
		}

		open suspend fun unlockedSection(key: String): Long = inside(null)

		@SerialGroup(name = "turn", key = "#group", waitTime = "30s")
		open suspend fun groupTurn(group: String): Long = inside(ReactiveLockService.current().awaitSingleOrNull())

		@DistributedLock(name = "section", key = "#key", waitTime = "200ms")
		open suspend fun impatient(key: String): Long = inside(null)

		@DistributedLock(name = "endless", key = "#key", waitTime = "5s")
		open suspend fun endless(key: String, started: CompletableDeferred<LockHandle>, cancelledInside: AtomicBoolean) {
			started.complete(ReactiveLockService.current().awaitSingleOrNull()!!)
			try {
				awaitCancellation()
			}
			catch (ex: CancellationException) {
				cancelledInside.set(true)
				throw ex
			}
		}

		@DistributedLock(name = "ticks", key = "#key", waitTime = "5s")
		open suspend fun ticks(key: String): Flow<Boolean> = flow {
			repeat(3) {
				emit(ReactiveLockService.current().awaitSingleOrNull()?.isHeld == true)
				delay(5)
			}
		}

		/** A section that suspends while inside, so that unlocked callers overlap. */
		private suspend fun inside(handle: LockHandle?): Long {
			counts.entered.incrementAndGet()
			if (counts.inside.incrementAndGet() != 1) {
				counts.overlaps.incrementAndGet()
			}
			handle?.let { counts.tokensInEntryOrder.add(it.fencingToken()) }
			try {
				delay(3)
			}
			finally {
				counts.inside.decrementAndGet()
			}
			return handle?.fencingToken() ?: 0L
		}

	}

	@Configuration(proxyBeanMethods = false)
	open class Application {

		@Bean
		open fun lockService(environment: Environment): RedisLockService {
			val service = RedisLockService(connectionFactory)
			service.setKeyPrefix(environment.getRequiredProperty("test.prefix"))
			service.setShutdownTimeout(Duration.ZERO)
			return service
		}

		@Bean
		open fun counts(observations: TestObservationRegistry) = Counts(observations)

		@Bean
		open fun sections(counts: Counts) = Sections(counts)

		companion object {

			@Bean
			@JvmStatic
			@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
			fun lockAnnotationAdvisor(lockService: ObjectProvider<LockService>) =
				LockAnnotationAdvisor(lockService, Duration.ofSeconds(5), Duration.ofSeconds(60))

			@Bean
			@JvmStatic
			fun autoProxyCreator() = InfrastructureAdvisorAutoProxyCreator().apply { isProxyTargetClass = true }

		}

	}

}
