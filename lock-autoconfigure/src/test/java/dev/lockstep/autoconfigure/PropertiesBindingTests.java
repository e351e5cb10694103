package dev.lockstep.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.autoconfigure.web.LockstepWebProperties;
import dev.lockstep.lock.RedisLockService;
import dev.lockstep.queue.QueueSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The {@code lockstep.*} records as Boot binds them: their defaults are the ones the metadata
 * documents, each bad value fails naming its property, a queue's unset overrides inherit, and the
 * old instance id property still names the instance.
 */
class PropertiesBindingTests {

	@Test
	void unsetPropertiesTakeTheDefaultsTheMetadataDocuments() throws Exception {
		String text = new ClassPathResource("META-INF/spring-configuration-metadata.json")
			.getContentAsString(StandardCharsets.UTF_8);
		@SuppressWarnings("unchecked")
		List<Map<String, Object>> properties = (List<Map<String, Object>>) JsonParserFactory.getJsonParser()
			.parseMap(text)
			.get("properties");
		LockstepProperties defaults = bind(Map.of());
		LockstepWebProperties webDefaults = bindWeb(Map.of());
		int checked = 0;
		for (Map<String, Object> property : properties) {
			String name = (String) property.get("name");
			Object value = property.get("defaultValue");
			if (value == null || !name.startsWith("lockstep.")) {
				continue;
			}
			Map<String, String> set = Map.of(name, value.toString());
			if (name.startsWith("lockstep.web.")) {
				assertThat(bindWeb(set)).as(name).isEqualTo(webDefaults);
			}
			else {
				assertThat(bind(set)).as(name + " set to its documented default " + value).isEqualTo(defaults);
			}
			checked++;
		}
		assertThat(checked).as("properties with a documented default").isEqualTo(28);
		assertThat(bind(Map.of("lockstep.lock.wait-time", "1s"))).as("the comparison can fail").isNotEqualTo(defaults);
		assertThat(defaults.keyPrefix()).isEqualTo("lockstep:");
		assertThat(defaults.instanceId()).isNull();
		assertThat(defaults.queue().queues()).isEmpty();
	}

	/**
	 * The defaults written in the properties are the ones lock-core's services start with, so that a
	 * service built without Boot behaves as the auto-configured one: lock-core has no Boot, so each
	 * is written once on each side, and this keeps the two from drifting apart.
	 */
	@Test
	void theDefaultsAreTheCoreServicesOwn() {
		LockstepProperties defaults = bind(Map.of());
		assertThat(defaults.queue().settings("any")).as("lockstep.queue.* against QueueSettings.DEFAULTS")
			.isEqualTo(QueueSettings.DEFAULTS);
		RedisLockService service = new RedisLockService(new LettuceConnectionFactory());
		assertThat(defaults.lock().leaseTime()).as("lockstep.lock.lease-time").isEqualTo(service.getLeaseTime());
		assertThat(defaults.keyPrefix()).as("lockstep.key-prefix").isEqualTo(service.getKeyPrefix());
	}

	@Test
	void eachBadValueFailsNamingItsPropertyAndTheValue() {
		Map<String, String> bad = Map.ofEntries(Map.entry("lockstep.lock.wait-time=-1s", "must not be negative, was -1s"),
				Map.entry("lockstep.lock.lease-time=500ms", "must be at least 1s, was 500ms"),
				Map.entry("lockstep.lock.shutdown-timeout=-2s", "must not be negative, was -2s"),
				Map.entry("lockstep.lock.replica-acknowledgements=-1", "must not be negative, was -1"),
				Map.entry("lockstep.serial-group.wait-time=-5s", "must not be negative, was -5s"),
				Map.entry("lockstep.job-guard.lock-at-most-for=900ms", "must be at least 1s, was 900ms"),
				Map.entry("lockstep.job-guard.lock-at-least-for=-1s", "must not be negative, was -1s"),
				Map.entry("lockstep.job-guard.skew-tolerance=-1s", "must not be negative, was -1s"),
				Map.entry("lockstep.job-guard.shutdown-timeout=-1s", "must not be negative, was -1s"),
				Map.entry("lockstep.job-guard.instance-id=node 1", "was 'node 1'"),
				Map.entry("lockstep.job-guard.scope=a{b}", "was 'a{b}'"),
				Map.entry("lockstep.queue.lease-time=10ms", "must be at least 1s, was 10ms"),
				Map.entry("lockstep.queue.max-attempts=0", "must be at least 1, was 0"),
				Map.entry("lockstep.queue.retry-backoff=-1s", "must not be negative, was -1s"),
				Map.entry("lockstep.queue.deduplication-window=10ms", "must be at least 1s, was 10ms"),
				Map.entry("lockstep.queue.shutdown-timeout=-1s", "must not be negative, was -1s"),
				Map.entry("lockstep.queue.max-payload-size=0B", "must be positive, was 0B"),
				Map.entry("lockstep.counters.idempotency-window=0s", "must be at least 1ms, was 0s"),
				Map.entry("lockstep.key-prefix=a{b}:", "was 'a{b}:'"), Map.entry("lockstep.instance-id=node 7", "was 'node 7'"),
				Map.entry("lockstep.command-timeout=0s", "must be at least 1ms, was 0s"),
				Map.entry("lockstep.heartbeat-interval=1ms", "must be at least 10ms, was 1ms"));
		bad.forEach((setting, message) -> {
			String property = setting.substring(0, setting.indexOf('='));
			Throwable failure = catchThrowable(() -> bind(Map.of(property, setting.substring(setting.indexOf('=') + 1))));
			assertThat(failure).as(setting).hasStackTraceContaining(property + " ").hasStackTraceContaining(message);
		});
	}

	@Test
	void aQueuesUnsetOverridesInheritAndItsBadOnesNameTheQueuesProperty() {
		QueueProperties queue = bind(Map.of("lockstep.queue.max-attempts", "5", "lockstep.queue.retry-backoff", "250ms",
				"lockstep.queue.queues.reports.lease-time", "2m", "lockstep.queue.queues.imports.retry-backoff", "-1s"))
			.queue();
		assertThat(queue.settings("reports"))
			.isEqualTo(new QueueSettings(Duration.ofMinutes(2), 5, Duration.ofMillis(250), Duration.ofMinutes(10)));
		assertThat(queue.settings("other")).isEqualTo(queue.defaults())
			.isEqualTo(new QueueSettings(Duration.ofSeconds(30), 5, Duration.ofMillis(250), Duration.ofMinutes(10)));
		assertThat(queue.queues().get("reports").maxAttempts()).as("unset: inherited, not a default of its own").isNull();
		assertThat(catchThrowable(() -> queue.settings("imports")))
			.hasMessage("lockstep.queue.queues.imports.retry-backoff must not be negative, was -1s");
	}

	/** A queue name every call of the queue would refuse fails the binding, naming the property. */
	@Test
	void aQueuesKeyThatIsNoQueueNameFailsNamingIt() {
		assertThat(catchThrowable(() -> bind(Map.of("lockstep.queue.queues.[a{b}].lease-time", "2m"))))
			.hasStackTraceContaining("lockstep.queue.queues key 'a{b}' must not contain '{' or '}'");
		String tooLong = "q".repeat(1025);
		assertThat(catchThrowable(() -> bind(Map.of("lockstep.queue.queues." + tooLong + ".lease-time", "2m"))))
			.hasStackTraceContaining("lockstep.queue.queues key '" + "q".repeat(64) + "...' is 1025 bytes long; a queue "
					+ "name is at most 1024 bytes");
		assertThat(bind(Map.of("lockstep.queue.queues." + "q".repeat(1024) + ".lease-time", "2m")).queue().queues())
			.containsOnlyKeys("q".repeat(1024));
	}

	@Test
	void theDeprecatedJobGuardInstanceIdNamesTheInstanceUnlessTheNewPropertySaysOtherwise() {
		assertThat(bind(Map.of("lockstep.job-guard.instance-id", "old-1")).configuredInstanceId()).isEqualTo("old-1");
		assertThat(bind(Map.of("lockstep.instance-id", "new-1")).configuredInstanceId()).isEqualTo("new-1");
		assertThat(bind(Map.of("lockstep.job-guard.instance-id", "same-1", "lockstep.instance-id", "same-1"))
			.configuredInstanceId()).isEqualTo("same-1");
		assertThat(catchThrowable(() -> bind(Map.of("lockstep.job-guard.instance-id", "old-1", "lockstep.instance-id",
				"new-1")))).hasStackTraceContaining("lockstep.instance-id ('new-1') and its deprecated alias "
						+ "lockstep.job-guard.instance-id ('old-1') are both set, to different values");
		assertThat(bind(Map.of()).configuredInstanceId()).isNull();
	}

	private static LockstepProperties bind(Map<String, String> properties) {
		return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("lockstep",
				LockstepProperties.class);
	}

	private static LockstepWebProperties bindWeb(Map<String, String> properties) {
		return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("lockstep.web",
				LockstepWebProperties.class);
	}

}
