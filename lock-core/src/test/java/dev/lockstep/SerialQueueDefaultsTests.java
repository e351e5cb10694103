package dev.lockstep;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The public interface is a promise: an application's own {@link SerialQueue}, written against the
 * methods 0.1.0 had, still compiles, and a method added later answers with an error naming it.
 */
class SerialQueueDefaultsTests {

	@Test
	void anImplementationWrittenBeforeDiscardCompilesAndItsDiscardNamesItself() {
		SerialQueue own = new OwnQueue();
		assertThatThrownBy(() -> own.discard("imports", "t-1")).isInstanceOf(UnsupportedOperationException.class)
			.hasMessageContaining(OwnQueue.class.getName())
			.hasMessageContaining("SerialQueue.discard")
			.hasMessageContaining("'t-1'")
			.hasMessageContaining("'imports'");
	}

	@Test
	void anImplementationWrittenBeforePausingCompilesAndItsPauseNamesItself() {
		SerialQueue own = new OwnQueue();
		assertThatThrownBy(() -> own.pause("imports", "acme")).isInstanceOf(UnsupportedOperationException.class)
			.hasMessageContaining(OwnQueue.class.getName())
			.hasMessageContaining("SerialQueue.pause")
			.hasMessageContaining("'imports'");
		assertThatThrownBy(() -> own.resume("imports", null)).isInstanceOf(UnsupportedOperationException.class)
			.hasMessageContaining("SerialQueue.resume");
		assertThat(own.isPaused("imports")).isFalse();
		assertThat(own.pausedGroups("imports")).isEmpty();
	}

	/** Implements exactly the abstract methods of 0.1.0's interface. */
	static final class OwnQueue implements SerialQueue {

		@Override
		public String submit(String queue, String group, Object payload) {
			return "t-1";
		}

		@Override
		public String submit(String queue, String group, Object payload, String deduplicationId) {
			return "t-1";
		}

		@Override
		public Optional<SerialTask> task(String queue, String taskId) {
			return Optional.empty();
		}

		@Override
		public QueueStats stats(String queue) {
			throw new UnsupportedOperationException();
		}

		@Override
		public List<SerialTask> deadLetters(String queue, int max) {
			return List.of();
		}

		@Override
		public boolean redrive(String queue, String taskId) {
			return false;
		}

	}

}
