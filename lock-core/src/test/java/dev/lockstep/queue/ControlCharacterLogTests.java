package dev.lockstep.queue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstep.LockHandle;
import dev.lockstep.LockNotAcquiredException;
import dev.lockstep.internal.LogText;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.lock.RedisLockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Lock keys and group names come from requests; a request that puts a line break or a terminal
 * escape in one must not forge a log line. The log lines Lockstep writes are captured here.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControlCharacterLogTests {

	/** A key that, written as it is, would add a forged line and recolour a terminal. */
	private static final String FORGED = "order-1\n12:00:00.000 ERROR [main] Payment - refund granted\u001b[31m";

	private static final String ESCAPED = "order-1\\n12:00:00.000 ERROR [main] Payment - refund granted\\u001b[31m";

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final ListAppender<ILoggingEvent> log = new ListAppender<>();

	private final Logger lockstep = (Logger) LoggerFactory.getLogger("dev.lockstep");

	@BeforeEach
	void capture() {
		this.log.start();
		this.lockstep.addAppender(this.log);
	}

	@AfterEach
	void release() {
		this.lockstep.detachAppender(this.log);
	}

	@Test
	void controlCharactersAreWrittenAsEscapesAndOtherTextIsLeftAlone() {
		assertThat(LogText.of(FORGED)).isEqualTo(ESCAPED);
		assertThat(LogText.of("a\r\tb\u2028c\u0000")).isEqualTo("a\\r\\tb\\u2028c\\u0000");
		assertThat(LogText.of("tenant:été/订单 #1")).isEqualTo("tenant:été/订单 #1");
		assertThat(LogText.of(null)).isEqualTo("null");
	}

	@Test
	void aLockKeyWithALineBreakIsEscapedInTheLogLineAndInTheExceptionMessage() {
		RedisLockService holder = service();
		RedisLockService other = service();
		try {
			LockHandle held = holder.tryAcquire(FORGED, Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> other.acquire(FORGED, Duration.ZERO))
				.satisfies((ex) -> assertThat(ex.getMessage()).contains("'" + ESCAPED + "'").doesNotContain("\n"));
			// the lease runs out before the release: the release warns, naming the key
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !Boolean.TRUE.equals(this.redis.template().hasKey(this.redis.prefix() + "{" + FORGED + "}")));
			held.close();
			await().atMost(Duration.ofSeconds(10)).until(() -> lines().stream().anyMatch((line) -> line.contains("had already expired")));
			assertThat(lines()).filteredOn((line) -> line.contains("had already expired"))
				.singleElement()
				.satisfies((line) -> assertThat(line).contains("'" + ESCAPED + "'").doesNotContain("\n", "\u001b"));
		}
		finally {
			holder.stop();
			other.stop();
		}
	}

	@Test
	void aGroupNameWithALineBreakIsEscapedInTheFailedTaskLogLine() {
		RedisSerialQueue queue = new RedisSerialQueue(this.redis.factory(), JsonMapper.builder().build());
		queue.setKeyPrefix(this.redis.prefix());
		queue.setDefaults(new QueueSettings(Duration.ofSeconds(30), 1, Duration.ZERO, Duration.ofMinutes(1)));
		queue.listen("imports", 1, (task, payload) -> {
			throw new IllegalStateException("refused");
		}, "a failing handler");
		queue.start();
		try {
			queue.submit("imports", FORGED, "x");
			await().atMost(Duration.ofSeconds(20)).until(() -> queue.stats("imports").dead() == 1);
			assertThat(lines()).filteredOn((line) -> line.contains("failed on attempt"))
				.singleElement()
				.satisfies((line) -> assertThat(line).contains("(group '" + ESCAPED + "')").doesNotContain("\n", "\u001b"));
		}
		finally {
			queue.setShutdownTimeout(Duration.ZERO);
			queue.stop();
		}
	}

	private RedisLockService service() {
		return RedisConnections.lockService(this.redis.factory(), this.redis.prefix(), (settings) -> {
		});
	}

	private List<String> lines() {
		return this.log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
	}

}
