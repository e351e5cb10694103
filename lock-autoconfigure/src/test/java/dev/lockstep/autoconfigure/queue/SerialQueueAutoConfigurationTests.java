package dev.lockstep.autoconfigure.queue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import dev.lockstep.QueueStats;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialTask;
import dev.lockstep.annotation.SerialQueueListener;
import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.autoconfigure.metrics.LockstepMetricsAutoConfiguration;
import dev.lockstep.queue.QueueSettings;
import dev.lockstep.queue.RedisSerialQueue;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/** Serial queues wired by Boot: the bean, listener methods, properties and meters, on a real Redis. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SerialQueueAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
				LockstepAutoConfiguration.class, LockstepMetricsAutoConfiguration.class,
				SerialQueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + TestRedis.standalone().host(),
				"spring.data.redis.port=" + TestRedis.standalone().port(),
				"lockstep.key-prefix=q" + UUID.randomUUID().toString().substring(0, 8) + ":");

	@Test
	void aListenerMethodRunsTheTasksSubmittedToItsQueueWithTheirPayloadAndTask() {
		this.runner.withUserConfiguration(Imports.class).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("app.import-workers=3")
			.run((context) -> {
				SerialQueue queue = context.getBean(SerialQueue.class);
				Imports imports = context.getBean(Imports.class);
				String first = queue.submit("imports", "tenant-1:orders", new ImportRequest("tenant-1", "orders", 1));
				String second = queue.submit("imports", "tenant-1:orders", new ImportRequest("tenant-1", "orders", 2));
				await().atMost(Duration.ofSeconds(30)).until(() -> imports.ran.size() == 2);
				assertThat(imports.ran).containsExactly("orders#1 " + first + " attempt 1", "orders#2 " + second + " attempt 1");
				assertThat(queue.task("imports", first)).get().extracting(SerialTask::state).isEqualTo(SerialTask.State.DONE);
				assertThat(queue.stats("imports")).isEqualTo(new QueueStats(0, 0, 0, 0));

				MeterRegistry meters = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> meters.find("lockstep.queue.run").tag("outcome", "done").timer() != null
							&& meters.find("lockstep.queue.run").tag("outcome", "done").timer().count() == 2);
				assertThat(meters.get("lockstep.queue.wait").tag("queue", "imports").timer().count()).isEqualTo(2);
				assertThat(meters.get("lockstep.queue.tasks").tag("queue", "imports").tag("state", "queued").gauge().value())
					.isZero();
				assertThat(context.getBean(RedisSerialQueue.class).listenedQueues()).containsExactly("imports");
			});
	}

	@Test
	void maxPayloadSizeBindsAndRefusesALargerPayloadNamingTheProperty() {
		this.runner.withPropertyValues("lockstep.queue.max-payload-size=2KB").run((context) -> {
			SerialQueue queue = context.getBean(SerialQueue.class);
			queue.submit("imports", "tenant-1", "a".repeat(2046));
			assertThatIllegalArgumentException().isThrownBy(() -> queue.submit("imports", "tenant-1", "a".repeat(2047)))
				.withMessageContaining("is 2049 bytes as JSON, over the largest allowed, 2048 bytes "
						+ "(lockstep.queue.max-payload-size); nothing was stored");
		});
		this.runner.withPropertyValues("lockstep.queue.max-payload-size=0B")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("lockstep.queue.max-payload-size must be positive, was 0B"));
	}

	@Test
	void bindsTheQueuePropertiesWithPerQueueOverrides() {
		this.runner.withPropertyValues("lockstep.queue.lease-time=20s", "lockstep.queue.max-attempts=5",
				"lockstep.queue.retry-backoff=250ms", "lockstep.queue.deduplication-window=1h",
				"lockstep.queue.shutdown-timeout=7s", "lockstep.queue.queues.reports.max-attempts=1",
				"lockstep.queue.queues.reports.lease-time=2m")
			.run((context) -> {
				RedisSerialQueue queue = context.getBean(RedisSerialQueue.class);
				assertThat(queue.settings("imports")).isEqualTo(new QueueSettings(Duration.ofSeconds(20), 5,
						Duration.ofMillis(250), Duration.ofHours(1)));
				assertThat(queue.settings("reports")).isEqualTo(new QueueSettings(Duration.ofMinutes(2), 1,
						Duration.ofMillis(250), Duration.ofHours(1)));
			});
	}

	@Test
	void invalidSettingsStopStartupNamingTheirSource() {
		assertStartupFails(List.of("lockstep.queue.max-attempts=0"), "lockstep.queue.max-attempts", "0");
		assertStartupFails(List.of("lockstep.queue.lease-time=10ms"), "lockstep.queue.lease-time", "10ms");
		assertStartupFails(List.of("lockstep.queue.retry-backoff=-1s"), "lockstep.queue.retry-backoff");
		assertStartupFails(List.of("lockstep.queue.queues.reports.max-attempts=0"), "lockstep.queue.queues.reports.max-attempts");
		this.runner.withUserConfiguration(BadConcurrency.class).run((context) -> assertThat(messages(context.getStartupFailure()))
			.contains(BadConcurrency.class.getName() + ".handle").contains("'lots'"));
		this.runner.withUserConfiguration(TwoPayloads.class).run((context) -> assertThat(messages(context.getStartupFailure()))
			.contains(TwoPayloads.class.getName() + ".handle").contains("more than one payload parameter"));
	}

	/**
	 * As in an application (Boot's placeholder configurer is strict): an unresolvable placeholder or
	 * a queue name that cannot be a queue's stops startup naming the method.
	 */
	@Test
	void aBadPlaceholderOrQueueNameStopsStartupNamingTheMethod() {
		ApplicationContextRunner strict = this.runner
			.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class))
			.withUserConfiguration(FromProperties.class);
		strict.withPropertyValues("app.queue=imports").run((context) -> assertThat(messages(context.getStartupFailure()))
			.contains(FromProperties.class.getName() + ".handle").contains("app.workers"));
		strict.withPropertyValues("app.queue=imp{orts}", "app.workers=2")
			.run((context) -> assertThat(messages(context.getStartupFailure()))
				.contains(FromProperties.class.getName() + ".handle").contains("'imp{orts}'"));
	}

	@Test
	void queuesCanBeTurnedOff() {
		this.runner.withPropertyValues("lockstep.queue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(SerialQueue.class));
		this.runner.withPropertyValues("lockstep.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(SerialQueue.class));
	}

	private void assertStartupFails(List<String> properties, String... fragments) {
		this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains(fragments);
		});
	}

	private static String messages(Throwable failure) {
		assertThat(failure).as("a startup failure").isNotNull();
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append('\n');
		}
		return messages.toString();
	}

	record ImportRequest(String tenant, String entity, int number) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Imports {

		final List<String> ran = new CopyOnWriteArrayList<>();

		@SerialQueueListener(queue = "imports", concurrency = "${app.import-workers}")
		void handle(ImportRequest request, SerialTask task) {
			this.ran.add(request.entity() + "#" + request.number() + " " + task.id() + " attempt " + task.attempt());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadConcurrency {

		@SerialQueueListener(queue = "imports", concurrency = "lots")
		void handle(ImportRequest request) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FromProperties {

		@SerialQueueListener(queue = "${app.queue}", concurrency = "${app.workers}")
		void handle(ImportRequest request) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoPayloads {

		@SerialQueueListener(queue = "imports")
		void handle(ImportRequest request, String other) {
		}

	}

}
