package dev.lockstep.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Predicate;

import net.jqwik.api.AfterFailureMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.internal.redis.RedisScripts;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.testing.RedisServer;
import dev.lockstep.testing.Replays;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue scripts driven by jqwik's stateful properties against a Redis server of their own:
 * chains of actions, each a step of {@link QueueProtocolModel} with the choices the action drew,
 * and on a failure shrunk to the shortest chain that still fails (the report lists its steps).
 * The actions: submits (some with a deduplication id seen before, some sent twice), takes by ever
 * new owners with leases that run out at once or not (some a woken worker's, some sent twice as
 * Lettuce sends a command again after a reconnect), finishes (some taking the next task in the
 * same step, some sent twice), failures with and without backoff, releases, takes undone (their
 * reply lost), renewals, instances started again after a crash (giving back what their earlier
 * runs held) or stopped and started cleanly (a listener outliving the stop, its late end counting
 * for nothing), Redis losing its data (FLUSHALL), redrives and discards (of dead tasks and of
 * tasks that are not dead), recorded ends, redrives, discards, pauses and resumes sent again
 * (their reply lost), ends of another kind by an owner that ended its task already, and pauses and
 * resumes of the queue and of groups. After every step the queue's keys are read back and checked
 * against its invariants (see {@link QueueProtocolModel}):
 * <ul>
 * <li>a group with tasks is in exactly one of: waiting for a worker (once), waiting for a retry,
 * waiting aside (paused), running; a group without tasks is in none;</li>
 * <li>at most one task of a group runs, and it is the group's head; the running set holds exactly
 * the running tasks;</li>
 * <li>the queued count is the number of queued tasks; the stats, the task view and the groups view
 * count a task whose lease ran out as queued, not running;</li>
 * <li>no task is lost: every stored task is in its group, done, or dead (and only dead ones in the
 * dead letters); a discarded task is gone and only a dead one is discarded; a group's tasks that
 * were never redriven stay in submission order;</li>
 * <li>only the current owner's finish, failure, release or renewal counts, and a task is done at
 * most once; an end sent again answers as the first did and changes nothing; a redrive or discard
 * sent again answers as the first did and changes nothing, even when the task died again since;</li>
 * <li>a take or finish-and-take sent again (its reply lost) answers with the task the first one
 * started, its attempt and fencing token unchanged, and every running task is owned by the take
 * its worker heard of; fencing tokens increase with every start within a group;</li>
 * <li>a woken worker's take starts the head of the group that waited longest, or nothing, quietly,
 * and says once on the queue's channel which, naming its instance; the idle mark names the
 * instance of the worker whose take found nothing last, a wake-up names that instance, and one
 * follows whenever a submit readies a group while the mark is set;</li>
 * <li>no take starts a task of a paused group or of a paused queue; the pause view shows what was
 * paused.</li>
 * </ul>
 * CI runs lock-core's {@code jqwik.tries.default} chains of up to {@code lockstep.queue.steps}
 * (default {@value #STEPS}) steps; a failing chain is shrunk for up to
 * {@code jqwik.shrinking.bounded.seconds} (each smaller chain runs against Redis again, about 20 ms
 * a step). The next run tries the failing chain first (jqwik's database under target), and the
 * seed jqwik prints, given to {@code @Property(seed = ...)}, replays it. {@link #aSeedReplaysTheSameChain} checks that a
 * seed ({@code -Dlockstep.queue.seed=...}) replays its chain step for step: the scripts read
 * Redis's clock, so nothing may fall due at a time the machine's speed decides. A lease either runs
 * out at once (1 ms, and the step waits 2 ms before anything could sweep it) or outlives the chain
 * (60 s), and a retry's backoff (up to 4 ms) has passed before the next step.
 */
class QueueProtocolPropertyTests {

	static final int STEPS = 150;

	private static RedisServer server;

	private static LettuceConnectionFactory factory;

	private static StringRedisTemplate template;

	private static QueueScripts scripts;

	private static final List<QueueProtocolModel> open = new ArrayList<>();

	@BeforeContainer
	static void startRedis() {
		server = RedisServer.start();
		factory = RedisConnections.standalone(server.host(), server.port());
		template = new StringRedisTemplate(factory);
		template.afterPropertiesSet();
		scripts = new QueueScripts(new RedisScripts(factory));
	}

	@AfterContainer
	static void stopRedis() {
		factory.destroy();
		server.close();
	}

	@AfterTry
	void closeModels() {
		open.forEach(QueueProtocolModel::close);
		open.clear();
	}

	@Property(afterFailure = AfterFailureMode.SAMPLE_FIRST)
	void invariantsHoldUnderEveryChainOfActions(@ForAll("chains") ActionChain<QueueProtocolModel> chain) {
		chain.withInvariant("the queue's invariants", QueueProtocolModel::invariants).run();
	}

	/** The same seed gives the same chain, step for step, however fast the machine runs it. */
	@Example
	void aSeedReplaysTheSameChain() {
		long seed = Long.getLong("lockstep.queue.seed", System.nanoTime());
		String first = runSeeded(seed);
		String again = runSeeded(seed);
		Replays.assertSameRun(seed, first, again);
	}

	private String runSeeded(long seed) {
		ActionChain<QueueProtocolModel> chain = chains(Math.max(steps(), 400)).generator(1000).next(new Random(seed)).value();
		QueueProtocolModel end = chain.withInvariant("the queue's invariants", QueueProtocolModel::invariants).run();
		assertThat(end.namedWakeUps()).as("wake-ups naming an instance heard with seed " + seed).isPositive();
		return end.course();
	}

	@Provide
	Arbitrary<ActionChain<QueueProtocolModel>> chains() {
		return chains(steps());
	}

	private static int steps() {
		return Integer.getInteger("lockstep.queue.steps", STEPS);
	}

	private static ActionChainArbitrary<QueueProtocolModel> chains(int steps) {
		// which of the tasks held, submitted or ends sent (modulo how many there are): a small range
		// shrinks in few steps
		Arbitrary<Integer> pick = Arbitraries.integers().between(0, 7);
		Arbitrary<Integer> instance = Arbitraries.integers().between(0, QueueProtocolModel.INSTANCES - 1);
		Arbitrary<Boolean> flip = Arbitraries.of(false, true);
		return ActionChain.<QueueProtocolModel>startWith(QueueProtocolPropertyTests::newModel)
			.withAction(24, always(Combinators.combine(Arbitraries.integers().between(0, 4), dedups(), rarely(4))
				.as((group, dedup, twice) -> step("submit to " + QueueProtocolModel.group(group) + " dedup " + dedup
						+ (twice ? " sent twice" : ""), (m) -> m.submit(group, dedup, twice)))))
			.withAction(24, always(Combinators.combine(instance, flip, flip, rarely(3), rarely(4), flip)
				.as((i, shortLease, sweep, woken, twice, sweepAgain) -> step("take by w" + i + (shortLease ? " lease 1 ms" : "")
						+ (sweep ? " sweep" : "") + (woken ? " woken" : "") + (twice ? " sent twice" : "")
						+ (sweepAgain ? " sweeping again" : ""), (m) -> m.take(i, shortLease, sweep, woken, twice, sweepAgain)))))
			.withAction(19, when(QueueProtocolModel::holdsAny, Combinators.combine(pick, Arbitraries.integers().between(-1, 2), flip, rarely(4))
				.as((p, next, sweep, twice) -> step("finish held #" + p + ((next >= 0) ? " and take for w" + next : "")
						+ (sweep ? " sweep" : "") + (twice ? " sent twice" : ""), (m) -> m.finish(p, next, sweep, twice)))))
			.withAction(14, when(QueueProtocolModel::holdsAny, Combinators.combine(pick, Arbitraries.of(0, 0, 1, 2, 3, 4), rarely(6))
				.as((p, backoff, bury) -> step("fail held #" + p + " backoff " + backoff + (bury ? " buried at once" : ""),
						(m) -> m.fail(p, backoff, bury)))))
			.withAction(3, when(QueueProtocolModel::holdsAny, Combinators.combine(pick, instance)
				.as((p, i) -> step("untake held #" + p, (m) -> m.untake(p, i)))))
			.withAction(3, when(QueueProtocolModel::holdsAny, Combinators.combine(pick, rarely(3))
				.as((p, unlimited) -> step("release held #" + p + (unlimited ? " unlimited" : ""), (m) -> m.release(p, unlimited)))))
			.withAction(5, when(QueueProtocolModel::holdsAny, pick.map((p) -> step("renew held #" + p, (m) -> m.renew(p)))))
			.withAction(1, always(instance.map((i) -> step("w" + i + " crashes and starts again", (m) -> m.restartAfterCrash(i)))))
			.withAction(1, always(Combinators.combine(instance, flip)
				.as((i, stuck) -> step("w" + i + " stops and starts" + (stuck ? ", a listener stuck" : ""), (m) -> m.stopAndStart(i, stuck)))))
			.withAction(1, when(QueueProtocolModel::hasStale, Combinators.combine(pick, flip)
				.as((p, finished) -> step("late " + (finished ? "finish" : "failure") + " #" + p, (m) -> m.staleEnd(p, finished)))))
			.withAction(1, always(Arbitraries.just(step("Redis loses its data", QueueProtocolModel::loseData))))
			.withAction(2, when(QueueProtocolModel::hasEnds, Combinators.combine(pick, rarely(4))
				.as((p, crossed) -> step((crossed ? "end of another kind after end #" : "end sent again #") + p,
						(m) -> m.replayEnd(p, crossed)))))
			.withAction(1, when(QueueProtocolModel::hasSubmitted, pick.map((p) -> step("discard #" + p, (m) -> m.discard(p)))))
			.withAction(2, when(QueueProtocolModel::hasSubmitted, pick.map((p) -> step("redrive #" + p, (m) -> m.redrive(p)))))
			.withAction(2, when(QueueProtocolModel::hasCalls, pick.map((p) -> step("redrive or discard sent again #" + p,
					(m) -> m.replayCall(p)))))
			.withAction(4, always(Combinators.combine(Arbitraries.integers().between(-1, 4), flip)
				.as((group, pause) -> step((pause ? "pause " : "resume ") + ((group < 0) ? "the queue" : QueueProtocolModel.group(group)),
						(m) -> m.pauseOrResume(group, pause)))))
			.withAction(1, when(QueueProtocolModel::hasPauses, pick.map((p) -> step("pause or resume sent again #" + p,
					(m) -> m.replayPause(p)))))
			.withMaxTransformations(steps);
	}

	private static QueueProtocolModel newModel() {
		QueueProtocolModel model = new QueueProtocolModel(new TestRedis.Endpoint(server.host(), server.port(), "own server"),
				template, scripts);
		open.add(model);
		return model;
	}

	/** A deduplication id of twenty (so some are seen before), in a quarter of the submits; -1: none. */
	private static Arbitrary<Integer> dedups() {
		return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(-1)),
				Tuple.of(1, Arbitraries.integers().between(0, 19)));
	}

	/** True once in {@code n}, shrinking to false. */
	private static Arbitrary<Boolean> rarely(int n) {
		return Arbitraries.integers().between(0, n - 1).map((i) -> i == n - 1);
	}

	private static Transformer<QueueProtocolModel> step(String description, Consumer<QueueProtocolModel> step) {
		return Transformer.mutate(description, step);
	}

	private static Action.Independent<QueueProtocolModel> always(Arbitrary<Transformer<QueueProtocolModel>> steps) {
		return when((model) -> true, steps);
	}

	private static Action.Independent<QueueProtocolModel> when(Predicate<QueueProtocolModel> precondition,
			Arbitrary<Transformer<QueueProtocolModel>> steps) {
		return new Action.Independent<>() {

			@Override
			public boolean precondition(QueueProtocolModel model) {
				return precondition.test(model);
			}

			@Override
			public Arbitrary<Transformer<QueueProtocolModel>> transformer() {
				return steps;
			}

		};
	}

}
