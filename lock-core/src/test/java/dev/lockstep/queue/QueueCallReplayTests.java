package dev.lockstep.queue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstep.lock.RedisFixture;
import dev.lockstep.internal.redis.RedisScripts;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A redrive or discard that Lettuce sends again after a reconnect (its reply lost, the call's id
 * the same) answers what the first did and does nothing more: not "not dead" for a redrive or
 * discard that worked, and no second redrive of a task that died again in between.
 */
class QueueCallReplayTests {

	private static final Duration KEEP = Duration.ofMinutes(1);

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private QueueScripts scripts;

	private QueueKeys keys;

	@BeforeEach
	void connect() {
		this.scripts = new QueueScripts(new RedisScripts(this.redis.factory()));
		this.keys = QueueKeys.of(this.redis.prefix(), "imports");
	}

	@Test
	void aRedriveSentAgainAnswersAsTheFirstAndDoesNotRedriveATaskThatDiedAgain() throws Exception {
		bury("t1", "w:1:1");
		assertThat(get(this.scripts.redrive(this.keys, "t1", "call-1", KEEP))).isEqualTo(1);
		assertThat(get(this.scripts.redrive(this.keys, "t1", "call-1", KEEP))).as("the redrive sent again").isEqualTo(1);
		assertThat(state("t1")).isEqualTo("QUEUED");
		// a worker runs it and buries it anew; the first redrive, sent again now, must not run it again
		takeAndBury("t1", "w:1:2");
		assertThat(get(this.scripts.redrive(this.keys, "t1", "call-1", KEEP))).as("the redrive sent again later").isEqualTo(1);
		assertThat(state("t1")).as("the task that died again").isEqualTo("DEAD");
		// a redrive of its own (another id) does redrive it
		assertThat(get(this.scripts.redrive(this.keys, "t1", "call-2", KEEP))).isEqualTo(1);
		assertThat(state("t1")).isEqualTo("QUEUED");
	}

	@Test
	void aDiscardSentAgainAnswersAsTheFirst() throws Exception {
		bury("t1", "w:1:1");
		assertThat(get(this.scripts.discard(this.keys, "t1", "call-1", KEEP))).isEqualTo(1);
		assertThat(get(this.scripts.discard(this.keys, "t1", "call-1", KEEP))).as("the discard sent again").isEqualTo(1);
		assertThat(get(this.scripts.task(this.keys, "t1"))).as("the discarded task").isEmpty();
		assertThat(get(this.scripts.discard(this.keys, "t1", "call-2", KEEP))).as("a discard of its own").isZero();
	}

	@Test
	void aRedriveOrDiscardOfATaskThatWasNotDeadAnswersZeroSentAgainAfterItDied() throws Exception {
		get(this.scripts.submit(this.keys, "t1", "g", "{}", null, KEEP));
		assertThat(get(this.scripts.redrive(this.keys, "t1", "call-1", KEEP))).isZero();
		assertThat(get(this.scripts.discard(this.keys, "t1", "call-2", KEEP))).isZero();
		takeAndBury("t1", "w:1:1");
		assertThat(get(this.scripts.redrive(this.keys, "t1", "call-1", KEEP))).as("the redrive sent again").isZero();
		assertThat(get(this.scripts.discard(this.keys, "t1", "call-2", KEEP))).as("the discard sent again").isZero();
		assertThat(state("t1")).as("the task, neither redriven nor discarded").isEqualTo("DEAD");
	}

	/** Submits {@code id} alone in its group and buries it at once (an unreadable payload). */
	private void bury(String id, String owner) throws Exception {
		get(this.scripts.submit(this.keys, id, "g-" + id, "{}", null, KEEP));
		takeAndBury(id, owner);
	}

	private void takeAndBury(String id, String owner) throws Exception {
		QueueScripts.Taken taken = get(this.scripts.take(this.keys, owner, 3, KEEP, false, false));
		assertThat(taken.task()).isNotNull();
		assertThat(taken.task().id()).isEqualTo(id);
		assertThat(get(this.scripts.fail(this.keys, id, owner, "unreadable", 0, Duration.ZERO))).isEqualTo(2);
		assertThat(state(id)).isEqualTo("DEAD");
	}

	private String state(String id) throws Exception {
		return get(this.scripts.task(this.keys, id)).get(0).state();
	}

	private static <T> T get(CompletableFuture<T> reply) throws Exception {
		return reply.get(10, TimeUnit.SECONDS);
	}

}
