package dev.lockstep.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The state of {@link QueueProtocolPropertyTests}: one queue's keys on a Redis of the test's own,
 * what the workers believe they hold, and what each step may be checked against; each public
 * method is one step, driven by an action of the chain with the choices the action drew. Every
 * step is checked against the channel messages it caused ({@link #checkMessages}) and, as the
 * chain's invariant, against the queue's invariants ({@link #checkInvariants}); its course (what
 * it did and heard) is kept for the seed replay check.
 */
final class QueueProtocolModel implements AutoCloseable {

	static final int MAX_ATTEMPTS = 3;

	static final int INSTANCES = 3;

	private static final Duration KEEP = Duration.ofMinutes(5);

	private final QueueScripts scripts;

	private final QueueKeys keys;

	private final StringRedisTemplate template;

	private final List<String> submitted = new ArrayList<>();

	private final Map<String, String> groupOf = new HashMap<>();

	private final Map<String, Integer> submitOrder = new HashMap<>();

	private final Set<String> redriven = new HashSet<>();

	/** The running tasks, each by the owner id its worker heard of. */
	private final Map<String, String> held = new LinkedHashMap<>();

	/**
	 * Workers that still run a task their instance no longer holds: a listener that outlived its
	 * instance's stop (the stop gave its task back), or one whose task Redis lost with its data; by
	 * owner id, their task's id. Their end, when it comes, counts for nothing.
	 */
	private final Map<String, String> stale = new LinkedHashMap<>();

	private final Set<String> done = new HashSet<>();

	private final Set<String> discarded = new HashSet<>();

	/** The latest recorded ends, to send again as a worker does when it did not hear the reply. */
	private final List<End> ends = new ArrayList<>();

	/** Ends of tasks redriven since: sent again, they answer 0 (the task forgot them) and change nothing. */
	private final Set<End> forgotten = new HashSet<>();

	/** Redrives and discards sent, which Lettuce may send again. */
	private final List<CallSent> callsSent = new ArrayList<>();

	private long owners;

	/** Ids and call ids are never used twice in a chain, not even after Redis lost its data. */
	private long serial;

	/** The run each instance is in: its owner ids' middle part. */
	private final int[] runs = new int[INSTANCES];

	/** The latest fencing token started in each group, and the owner it was started for. */
	private final Map<String, Long> tokens = new HashMap<>();

	private final Map<String, String> tokenOwners = new HashMap<>();

	private Map<String, Object> states = Map.of();

	private final Set<String> pausedGroups = new HashSet<>();

	private boolean queuePaused;

	/** Pauses and resumes sent, which Lettuce may send again. */
	private final List<PauseSent> pausesSent = new ArrayList<>();

	private int checks;

	/** The queue's channel, as an instance hears it. */
	private final ChannelMessages messages;

	/** What this step's woken takes said on the channel: {@code t:<instance>} when one started a task, else {@code n:<instance>}. */
	private final List<String> wokenAnswers = new ArrayList<>();

	/** Whether this step readied a group while a worker may be idle (a wake-up must follow). */
	private boolean readiedWhileIdle;

	/** How many wake-ups this step must send, when it says (else -1). */
	private int wakeUpsExpected;

	/** The wake-ups naming an instance heard in this chain. */
	private int namedWakeUps;

	private int steps;

	private final StringBuilder course = new StringBuilder();

	/** A fresh queue: Redis starts empty. */
	QueueProtocolModel(TestRedis.Endpoint redis, StringRedisTemplate template, QueueScripts scripts) {
		this.template = template;
		this.scripts = scripts;
		this.keys = QueueKeys.of("p:", "q");
		flushAll();
		this.messages = new ChannelMessages(redis, this.keys.channel());
	}

	/** What the chain did and heard, step by step, and what ended how. */
	String course() {
		return this.course + "done " + this.done.size() + ", discarded " + this.discarded.size() + ", held "
				+ this.held.size() + ", submitted " + this.submitted.size();
	}

	int namedWakeUps() {
		return this.namedWakeUps;
	}

	@Override
	public void close() {
		this.messages.close();
	}

	@Override
	public String toString() {
		return "queue after " + this.steps + " steps: " + this.submitted.size() + " submitted, held " + this.held
				+ ", stale " + this.stale.keySet() + ", paused " + (this.queuePaused ? "queue " : "") + this.pausedGroups;
	}

	/** One of the step bodies: answers what it did. */
	@FunctionalInterface
	interface Body {

		String run() throws Exception;

	}

	/** Runs one step and checks what it said on the channel; the chain checks the invariants after it. */
	private void step(Body body) {
		String idleBefore = this.template.opsForValue().get(this.keys.base() + ":idle");
		this.wokenAnswers.clear();
		this.readiedWhileIdle = false;
		this.wakeUpsExpected = -1;
		String what;
		try {
			what = body.run();
		}
		catch (AssertionError ex) {
			throw new AssertionError("step " + this.steps + ": " + ex.getMessage(), ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("step " + this.steps + " failed", ex);
		}
		try {
			checkMessages(idleBefore);
		}
		catch (AssertionError ex) {
			throw new AssertionError("step " + this.steps + " (" + what + "): " + ex.getMessage(), ex);
		}
		this.course.append(what).append('\n');
		this.steps++;
	}

	/** The chain's invariant: the queue's keys read back agree with what the workers did. */
	void invariants() {
		try {
			checkInvariants();
		}
		catch (AssertionError ex) {
			throw new AssertionError("after step " + (this.steps - 1) + ": " + ex.getMessage(), ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("reading the queue after step " + (this.steps - 1), ex);
		}
	}

	/** Group {@code index} of five; the fifth is named like a message to one instance's workers, which it must not read as. */
	static String group(int index) {
		return (index == 4) ? "n:w0" : "g" + index;
	}

	/** The instance id in an owner id {@code <instance>:<run>:<sequence>}. */
	private static String instanceOf(String owner) {
		return owner.substring(0, owner.indexOf(':'));
	}

	/** An owner id as the workers make them: {@code <instance>:<run>:<sequence>}. */
	private String newOwner(int instance) {
		return "w" + instance + ":" + this.runs[instance] + ":" + (++this.owners);
	}

	private static <T> T pick(List<T> from, int index) {
		return from.get(Math.floorMod(index, from.size()));
	}

	boolean holdsAny() {
		return !this.held.isEmpty();
	}

	boolean hasSubmitted() {
		return !this.submitted.isEmpty();
	}

	boolean hasEnds() {
		return !this.ends.isEmpty();
	}

	boolean hasStale() {
		return !this.stale.isEmpty();
	}

	boolean hasCalls() {
		return !this.callsSent.isEmpty();
	}

	boolean hasPauses() {
		return !this.pausesSent.isEmpty();
	}

	/**
	 * A submit, some with a deduplication id seen before ({@code dedup} -1: none); {@code sentTwice}:
	 * Lettuce sent it again after a reconnect, and the second answers the same id and stores nothing.
	 */
	void submit(int groupIndex, int dedupIndex, boolean sentTwice) {
		step(() -> {
			String group = group(groupIndex);
			String dedup = (dedupIndex < 0) ? null : "d" + dedupIndex;
			String id = "t" + (++this.serial);
			boolean readyBefore = this.template.opsForList().indexOf(this.keys.base() + ":ready", group) != null;
			String stored = get(this.scripts.submit(this.keys, id, group, "{}", dedup, KEEP));
			this.readiedWhileIdle = !readyBefore
					&& this.template.opsForList().indexOf(this.keys.base() + ":ready", group) != null
					&& Boolean.TRUE.equals(this.template.hasKey(this.keys.base() + ":idle"));
			if (stored.equals(id)) {
				this.submitOrder.put(id, this.submitted.size());
				this.submitted.add(id);
				this.groupOf.put(id, group);
			}
			else {
				assertThat(dedup).as("only a deduplication id returns another task's id").isNotNull();
				assertThat(this.submitted).contains(stored);
			}
			if (sentTwice) {
				String queuedBefore = this.template.opsForValue().get(this.keys.base() + ":queued");
				Long lengthBefore = this.template.opsForList().size(this.keys.base() + ":g:" + group);
				assertThat(get(this.scripts.submit(this.keys, id, group, "{}", dedup, KEEP))).as("a submit sent again")
					.isEqualTo(stored);
				assertThat(this.template.opsForValue().get(this.keys.base() + ":queued")).as("queued after a submit sent again")
					.isEqualTo(queuedBefore);
				assertThat(this.template.opsForList().size(this.keys.base() + ":g:" + group)).isEqualTo(lengthBefore);
			}
			return "submit " + id + " to " + group + " dedup " + dedup + (sentTwice ? " sent twice" : "");
		});
	}

	/**
	 * A take by a new owner of {@code instance}, with a lease that runs out at once (1 ms) or outlives
	 * the chain; a sweep of what fell due or not; a woken worker's take (no sweep, nothing quietly when
	 * no group waits) or not; and sent again (its reply lost), its worker hearing only the second reply.
	 */
	void take(int instance, boolean shortLease, boolean sweep, boolean woken, boolean sentTwice, boolean sweepAgain) {
		step(() -> {
			String owner = newOwner(instance);
			long lease = shortLease ? 1 : 60_000;
			String base = this.keys.base();
			List<String> readyBefore = this.template.opsForList().range(base + ":ready", 0, -1);
			Long idleBefore = this.template.getExpire(base + ":idle", TimeUnit.MILLISECONDS);
			Set<String> runningBefore = this.template.opsForZSet().range(base + ":running", 0, -1);
			Set<String> delayedBefore = this.template.opsForZSet().range(base + ":delayed", 0, -1);
			QueueScripts.Taken taken = get(this.scripts.take(this.keys, owner, MAX_ATTEMPTS, Duration.ofMillis(lease),
					sweep && !woken, woken));
			if (woken) {
				checkWokenTake(taken, readyBefore, idleBefore, runningBefore, delayedBefore);
				this.wokenAnswers.add(((taken.task() != null) ? "t:" : "n:") + instanceOf(owner));
			}
			if (sentTwice) {
				QueueScripts.Taken first = taken;
				boolean sweepSecond = sweepAgain && !woken;
				if (lease == 1 && sweepSecond) {
					// its sweep finds the first's lease run out, however fast the machine sent it again
					Thread.sleep(2);
				}
				taken = get(this.scripts.take(this.keys, owner, MAX_ATTEMPTS, Duration.ofMillis(lease), sweepSecond, woken));
				if (woken && first.task() == null) {
					// the first started nothing: this is a woken take of its own, which answers again
					this.wokenAnswers.add(((taken.task() != null) ? "t:" : "n:") + instanceOf(owner));
				}
				if (first.task() != null && lease > 1) {
					assertThat(taken.task()).as("a take sent again answers the task the first started").isNotNull();
					assertThat(taken.task().id()).isEqualTo(first.task().id());
					assertThat(taken.task().attempt()).as("its attempt counted once").isEqualTo(first.task().attempt());
					assertThat(taken.task().fencingToken()).as("and its token as the first").isEqualTo(first.task().fencingToken());
				}
			}
			if (taken.task() == null && !woken) {
				// a worker that found nothing may wait idle: submits and finishes wake the workers while it may
				assertThat(this.template.getExpire(base + ":idle", TimeUnit.MILLISECONDS))
					.as("the idle mark after a take that found nothing")
					.isBetween(QueueScripts.IDLE_MARK.toMillis() - 10_000, QueueScripts.IDLE_MARK.toMillis());
				assertThat(this.template.opsForValue().get(base + ":idle"))
					.as("the idle mark names the instance of the worker that went idle last")
					.isEqualTo(instanceOf(owner));
			}
			if (taken.task() != null) {
				checkNotPaused(taken.task());
				checkToken(taken.task());
				String id = taken.task().id();
				assertThat(this.groupOf.get(id)).isEqualTo(taken.task().group());
				this.held.put(id, owner);
				if (lease == 1) {
					Thread.sleep(2);
				}
			}
			return (woken ? "woken take by " : "take by ") + owner + " lease " + lease + (sentTwice ? " sent twice" : "") + ": "
					+ ((taken.task() != null) ? taken.task().id() : "none");
		});
	}

	/** Whether the owner the workers believe holds {@code id} is the one Redis names. */
	private boolean current(String id, String owner) {
		return owner.equals(this.template.opsForHash().get(this.keys.base() + ":t:" + id, "owner"));
	}

	/**
	 * A worker finishes the held task {@code index}, and takes its next task in the same step for a
	 * new owner of {@code nextInstance} (-1: it takes nothing), as the workers do; sent twice or not.
	 */
	void finish(int index, int nextInstance, boolean sweep, boolean sentTwice) {
		step(() -> {
			String id = pick(new ArrayList<>(this.held.keySet()), index);
			String owner = this.held.get(id);
			boolean current = current(id, owner);
			String next = (nextInstance >= 0) ? newOwner(nextInstance) : null;
			Callable<QueueScripts.Finished> finishCall = () -> get(this.scripts.finishAndTake(this.keys, id, owner, KEEP, next,
					new QueueSettings(Duration.ofSeconds(60), MAX_ATTEMPTS, Duration.ZERO, KEEP), sweep));
			// sent again later, it is the finish alone, as a worker sends it again when it did not hear the reply
			Callable<Long> finish = () -> get(this.scripts.finish(this.keys, id, owner, KEEP));
			QueueScripts.Finished finished = finishCall.call();
			if (sentTwice) {
				// the client sent it again after a reconnect; its worker hears only the second reply
				QueueScripts.Finished first = finished;
				finished = finishCall.call();
				assertThat(finished.ended()).as("a finish sent again answers as the first").isEqualTo(first.ended());
				if (first.next().task() != null) {
					assertThat(finished.next().task()).as("and takes for its next owner the task the first took").isNotNull();
					assertThat(finished.next().task().id()).isEqualTo(first.next().task().id());
					assertThat(finished.next().task().attempt()).isEqualTo(first.next().task().attempt());
				}
			}
			assertThat(finished.ended()).as("finish counts only for the current owner").isEqualTo(current);
			if (finished.ended()) {
				assertThat(this.done.add(id)).as("done at most once").isTrue();
				ended(new End("finish", id, owner, 1, finish));
			}
			this.held.remove(id);
			if (next != null && finished.ended() && finished.next().task() == null) {
				assertThat(this.template.opsForValue().get(this.keys.base() + ":idle"))
					.as("the idle mark after a finish whose take found nothing names its worker's instance")
					.isEqualTo(instanceOf(next));
			}
			if (finished.next().task() != null) {
				assertThat(next).as("a finish takes only when asked to").isNotNull();
				assertThat(finished.ended()).as("a finish that did not end its task takes nothing").isTrue();
				checkNotPaused(finished.next().task());
				checkToken(finished.next().task());
				this.held.put(finished.next().task().id(), next);
			}
			return "finish " + id + " by " + owner + ((next != null) ? " and take for " + next : "") + (sentTwice ? " sent twice" : "");
		});
	}

	/**
	 * A worker fails the held task {@code index}, retried after {@code backoff} ms (up to 4; the step
	 * waits it out, so whether a take finds it due does not depend on the machine's speed), or buried
	 * at once (an unreadable payload).
	 */
	void fail(int index, int backoff, boolean buryAtOnce) {
		step(() -> {
			String id = pick(new ArrayList<>(this.held.keySet()), index);
			String owner = this.held.get(id);
			boolean current = current(id, owner);
			int maxAttempts = buryAtOnce ? 0 : MAX_ATTEMPTS;
			Callable<Long> fail = () -> get(this.scripts.fail(this.keys, id, owner, "boom", maxAttempts, Duration.ofMillis(backoff)));
			long result = fail.call();
			assertThat(result != 0).as("a failure counts only for the current owner").isEqualTo(current);
			if (result != 0) {
				ended(new End("fail", id, owner, result, fail));
			}
			this.held.remove(id);
			if (backoff > 0) {
				Thread.sleep(backoff + 1);
			}
			return "fail " + id + " by " + owner + " backoff " + backoff + ": " + result;
		});
	}

	/** The take of held task {@code index} lost its reply: its worker undoes it; an owner that took nothing undoes nothing. */
	void untake(int index, int nobodyInstance) {
		step(() -> {
			String id = pick(new ArrayList<>(this.held.keySet()), index);
			String owner = this.held.get(id);
			boolean current = current(id, owner);
			String taskKey = this.keys.base() + ":t:" + id;
			Object attemptBefore = this.template.opsForHash().get(taskKey, "attempt");
			String nobody = newOwner(nobodyInstance);
			assertThat(get(this.scripts.untake(this.keys, nobody))).as("an owner that took nothing").isNull();
			String undone = get(this.scripts.untake(this.keys, owner));
			assertThat(undone).as("an untake counts only for the current owner").isEqualTo(current ? id : null);
			if (current) {
				assertThat(Integer.parseInt((String) this.template.opsForHash().get(taskKey, "attempt")))
					.as("the attempt of a take undone is not counted").isEqualTo(Integer.parseInt((String) attemptBefore) - 1);
			}
			this.held.remove(id);
			return "untake " + id + " by " + owner;
		});
	}

	/** Held task {@code index} given back (a stop); on its last attempt it goes to the dead letters. */
	void release(int index, boolean unlimited) {
		step(() -> {
			String id = pick(new ArrayList<>(this.held.keySet()), index);
			return release(id, this.held.get(id), unlimited ? Integer.MAX_VALUE : MAX_ATTEMPTS, "given back");
		});
	}

	private String release(String id, String owner, int maxAttempts, String reason) throws Exception {
		boolean current = current(id, owner);
		Object attempt = this.template.opsForHash().get(this.keys.base() + ":t:" + id, "attempt");
		Callable<Long> release = () -> get(this.scripts.release(this.keys, id, owner, reason, maxAttempts));
		long result = release.call();
		assertThat(result).as("a release counts only for the current owner, and buries a task on its last attempt")
			.isEqualTo(!current ? 0 : (Integer.parseInt((String) attempt) >= maxAttempts) ? 2 : 1);
		if (result != 0) {
			ended(new End("release", id, owner, result, release));
		}
		this.held.remove(id);
		return "release " + id + " by " + owner + ": " + result;
	}

	void renew(int index) {
		step(() -> {
			String id = pick(new ArrayList<>(this.held.keySet()), index);
			String owner = this.held.get(id);
			boolean current = current(id, owner);
			List<String> lost = get(this.scripts.renew(this.keys, Map.of(id, owner), Duration.ofSeconds(60)));
			assertThat(lost.isEmpty()).as("a renewal counts only for the current owner").isEqualTo(current);
			return "renew " + id;
		});
	}

	/**
	 * Instance {@code instance} starts again after an unclean stop: the tasks its earlier runs hold
	 * are given back (or buried after their last attempt), and no others.
	 */
	void restartAfterCrash(int instance) {
		step(() -> "instance w" + instance + " starts again after a crash: " + reclaim(instance));
	}

	private String reclaim(int instance) throws Exception {
		String prefix = "w" + instance + ":";
		Map<Object, Object> owners = this.template.opsForHash().entries(this.keys.base() + ":owners");
		Set<String> expected = new HashSet<>();
		owners.forEach((owner, id) -> {
			if (((String) owner).startsWith(prefix)) {
				expected.add((String) id);
			}
		});
		this.runs[instance]++;
		List<String> given = get(this.scripts.reclaim(this.keys, "w" + instance, prefix + this.runs[instance] + ":", MAX_ATTEMPTS));
		assertThat(given).as("tasks given back for instance w" + instance).containsExactlyInAnyOrderElementsOf(expected);
		given.forEach(this.held::remove);
		return "gave back " + given;
	}

	/**
	 * Instance {@code instance} stops cleanly and starts again: every task it holds is given back (as
	 * the shutdown does with those still running at its timeout); with {@code stuck}, the listener of
	 * its first such task ignores the interrupt and outlives the stop, its end to come later (see
	 * {@link #staleEnd}). Started again, its new run gives back nothing: the stop left it nothing.
	 */
	void stopAndStart(int instance, boolean stuck) {
		step(() -> {
			String prefix = "w" + instance + ":";
			List<String> given = new ArrayList<>();
			boolean stuckLeft = stuck;
			for (Map.Entry<String, String> entry : new ArrayList<>(this.held.entrySet())) {
				if (!entry.getValue().startsWith(prefix)) {
					continue;
				}
				given.add(release(entry.getKey(), entry.getValue(), MAX_ATTEMPTS, "given back: w" + instance + " stopped"));
				if (stuckLeft) {
					this.stale.put(entry.getValue(), entry.getKey());
					stuckLeft = false;
				}
			}
			String reclaimed = reclaim(instance);
			assertThat(reclaimed).as("what the new run of a cleanly stopped instance gives back").isEqualTo("gave back []");
			return "instance w" + instance + " stops and starts" + (stuck ? " (a listener stuck)" : "") + ": " + given;
		});
	}

	/**
	 * A worker whose task its instance no longer holds (its listener outlived the stop, or Redis lost
	 * the task) ends it: its finish or failure counts for nothing and changes nothing.
	 */
	void staleEnd(int index, boolean finished) {
		step(() -> {
			String owner = pick(new ArrayList<>(this.stale.keySet()), index);
			String id = this.stale.remove(owner);
			String taskKey = this.keys.base() + ":t:" + id;
			Map<Object, Object> before = this.template.opsForHash().entries(taskKey);
			String queuedBefore = this.template.opsForValue().get(this.keys.base() + ":queued");
			// a release by a stopped instance's owner is its release sent again: see replayEnd
			String what = finished ? "finish" : "fail";
			long answer = finished ? get(this.scripts.finish(this.keys, id, owner, KEEP))
					: get(this.scripts.fail(this.keys, id, owner, "boom", MAX_ATTEMPTS, Duration.ZERO));
			assertThat(answer).as("the late " + what + " of " + id + " by " + owner).isZero();
			assertThat(this.template.opsForHash().entries(taskKey)).as("the task after a late " + what).isEqualTo(before);
			assertThat(this.template.opsForValue().get(this.keys.base() + ":queued")).isEqualTo(queuedBefore);
			return "late " + what + " of " + id + " by " + owner;
		});
	}

	/**
	 * Redis loses its data (FLUSHALL: a restart without persistence, or a failover to an empty
	 * replica): every task is gone, and so are the pauses and the calls' answers. The workers that
	 * held tasks still run them, and their ends count for nothing; calls sent before are not sent
	 * again (a call's answer is lost with the data: one sent again acts anew).
	 */
	void loseData() {
		step(() -> {
			flushAll();
			this.held.forEach((id, owner) -> this.stale.put(owner, id));
			this.held.clear();
			this.submitted.clear();
			this.groupOf.clear();
			this.submitOrder.clear();
			this.redriven.clear();
			this.done.clear();
			this.discarded.clear();
			this.ends.clear();
			this.forgotten.clear();
			this.callsSent.clear();
			this.pausesSent.clear();
			this.pausedGroups.clear();
			this.queuePaused = false;
			this.states = Map.of();
			return "Redis loses its data";
		});
	}

	private void flushAll() {
		this.template.execute((RedisCallback<Object>) (connection) -> {
			connection.serverCommands().flushAll();
			return null;
		});
	}

	/** A recorded end {@code index} sent again (its reply lost), or with {@code crossed} an end of another kind by its owner. */
	void replayEnd(int index, boolean crossed) {
		step(() -> replay(pick(this.ends, index), crossed));
	}

	/** Discards submitted task {@code index}: only a dead task is discarded; any other stays where it is. */
	void discard(int index) {
		step(() -> {
			String any = pick(this.submitted, index);
			boolean wasDead = this.template.opsForZSet().score(this.keys.base() + ":dead", any) != null;
			String callId = "call-" + (++this.serial);
			long answer = get(this.scripts.discard(this.keys, any, callId, KEEP));
			assertThat(answer).as("discard " + any).isEqualTo(wasDead ? 1 : 0);
			this.callsSent.add(new CallSent("discard", any, callId, answer));
			if (wasDead) {
				this.discarded.add(any);
			}
			return "discard " + any + (wasDead ? "" : " (not dead)");
		});
	}

	/** Redrives dead task {@code index}, or, with none dead, a task that is not (answered 0). */
	void redrive(int index) {
		step(() -> {
			List<String> dead = new ArrayList<>(this.template.opsForZSet().range(this.keys.base() + ":dead", 0, -1));
			String id = dead.isEmpty() ? pick(this.submitted, index) : pick(dead, index);
			String callId = "call-" + (++this.serial);
			long answer = get(this.scripts.redrive(this.keys, id, callId, KEEP));
			assertThat(answer).as("redrive " + id + (dead.isEmpty() ? " (not dead)" : "")).isEqualTo(dead.isEmpty() ? 0 : 1);
			this.callsSent.add(new CallSent("redrive", id, callId, answer));
			if (answer == 1) {
				redriven(id);
			}
			return "redrive " + id + ": " + answer;
		});
	}

	private void redriven(String id) throws Exception {
		this.redriven.add(id);
		// its earlier ends are forgotten: a task redriven again and again does not grow
		this.ends.stream().filter((end) -> end.id().equals(id)).forEach(this.forgotten::add);
		assertThat(this.template.opsForHash().keys(this.keys.base() + ":t:" + id))
			.as("fields of redriven task " + id).noneMatch((field) -> ((String) field).startsWith("ended"));
	}

	/**
	 * A redrive or discard sent {@code index} sent again by Lettuce after a reconnect, whatever was
	 * done since (the task may have died again): it answers as the first did and changes nothing.
	 */
	void replayCall(int index) {
		step(() -> {
			CallSent sent = pick(this.callsSent, index);
			String base = this.keys.base();
			Map<Object, Object> before = this.template.opsForHash().entries(base + ":t:" + sent.id());
			Set<String> deadBefore = this.template.opsForZSet().range(base + ":dead", 0, -1);
			String queuedBefore = this.template.opsForValue().get(base + ":queued");
			long again = get(sent.what().equals("redrive") ? this.scripts.redrive(this.keys, sent.id(), sent.callId(), KEEP)
					: this.scripts.discard(this.keys, sent.id(), sent.callId(), KEEP));
			assertThat(again).as("a %s sent again answers as the first time", sent).isEqualTo(sent.answer());
			assertThat(this.template.opsForHash().entries(base + ":t:" + sent.id())).as("the task after " + sent + " sent again")
				.isEqualTo(before);
			assertThat(this.template.opsForZSet().range(base + ":dead", 0, -1)).as("the dead letters").isEqualTo(deadBefore);
			assertThat(this.template.opsForValue().get(base + ":queued")).isEqualTo(queuedBefore);
			return "sent again: " + sent;
		});
	}

	/** A redrive or discard as first sent and answered. */
	private record CallSent(String what, String id, String callId, long answer) {
	}

	/**
	 * Pauses or resumes the queue ({@code groupIndex} -1) or a group; a pause of what is paused, or a
	 * resume of what is not, answers 0.
	 */
	void pauseOrResume(int groupIndex, boolean pause) {
		step(() -> {
			String group = (groupIndex < 0) ? null : group(groupIndex);
			boolean pausedNow = (group == null) ? this.queuePaused : this.pausedGroups.contains(group);
			String callId = "call-" + (++this.serial);
			long answer = get(pause ? this.scripts.pause(this.keys, group, callId, KEEP)
					: this.scripts.resume(this.keys, group, callId, KEEP));
			this.pausesSent.add(new PauseSent(group, pause, callId, answer));
			assertThat(answer).as((pause ? "pause " : "resume ") + group + " (paused: " + pausedNow + ")")
				.isEqualTo((pause != pausedNow) ? 1 : 0);
			if (group == null && !pause && pausedNow && Boolean.TRUE.equals(this.template.hasKey(this.keys.base() + ":idle"))) {
				// a resumed queue wakes as many idle workers as groups wait (at least one, at most 100)
				Long ready = this.template.opsForList().size(this.keys.base() + ":ready");
				this.wakeUpsExpected = (int) Math.max(1, Math.min((ready != null) ? ready : 0, 100));
			}
			if (group == null) {
				this.queuePaused = pause;
			}
			else if (pause) {
				this.pausedGroups.add(group);
			}
			else {
				this.pausedGroups.remove(group);
			}
			return (pause ? "pause " : "resume ") + ((group == null) ? "the queue" : group);
		});
	}

	/** Lettuce sends pause or resume {@code index} again after a reconnect, whatever was done since. */
	void replayPause(int index) {
		step(() -> {
			PauseSent sent = pick(this.pausesSent, index);
			long again = get(sent.pause() ? this.scripts.pause(this.keys, sent.group(), sent.callId(), KEEP)
					: this.scripts.resume(this.keys, sent.group(), sent.callId(), KEEP));
			assertThat(again).as("a %s sent again answers as the first time", sent).isEqualTo(sent.answer());
			return "sent again: " + sent + " (changes nothing: checked with the pauses)";
		});
	}

	/** A pause or resume as first sent and answered ({@code group} null for the queue). */
	private record PauseSent(String group, boolean pause, String callId, long answer) {
	}

	/**
	 * What the step said on the queue's channel: a wake-up names the instance of the worker that went
	 * idle last (the idle mark before the step), and a submit that readies a group while the mark is
	 * set sends exactly one; a woken take says once whether it started a task, naming its instance;
	 * nothing else speaks to one instance's workers, not even a group named like such a message.
	 */
	private void checkMessages(String idleBefore) {
		List<String> heard = this.messages.since();
		List<String> wakeUps = heard.stream().filter((message) -> message.startsWith("w:")).toList();
		List<String> answers = heard.stream()
			.filter((message) -> message.startsWith("t:") || message.startsWith("n:"))
			.toList();
		if (idleBefore == null) {
			assertThat(wakeUps).as("wake-ups naming an instance with no idle mark").isEmpty();
		}
		else {
			assertThat(wakeUps).as("wake-ups, the idle mark naming " + idleBefore).allMatch(("w:" + idleBefore)::equals);
			if (this.readiedWhileIdle) {
				assertThat(heard).as("messages after a submit readied a group while " + idleBefore + " may be idle")
					.containsExactly("w:" + idleBefore);
			}
			if (this.wakeUpsExpected >= 0 && !"1".equals(idleBefore)) {
				assertThat(wakeUps).as("wake-ups of a resumed queue").hasSize(this.wakeUpsExpected);
			}
			this.namedWakeUps += wakeUps.size();
		}
		assertThat(answers).as("a woken take's word that it answered a wake-up").isEqualTo(this.wokenAnswers);
	}


	/**
	 * A woken worker's take starts the head task of the group that waited longest, as any take; when
	 * no group waits or the queue is paused it starts nothing quietly: it answers
	 * {@link QueueScripts.Taken#NOTHING_WAITED}, and leaves the groups waiting, the leases, the
	 * retries and the idle mark as they were (no look for what fell due, no idle mark set).
	 */
	private void checkWokenTake(QueueScripts.Taken taken, List<String> readyBefore, Long idleBefore, Set<String> runningBefore,
			Set<String> delayedBefore) {
		String base = this.keys.base();
		if (taken.task() == null) {
			assertThat(this.queuePaused || readyBefore.isEmpty())
				.as("a woken take starts nothing only when no group waits (" + readyBefore + ") or the queue is paused")
				.isTrue();
			assertThat(taken.nextDueMillis()).as("and says so, quietly").isEqualTo(QueueScripts.Taken.NOTHING_WAITED);
			assertThat(this.template.opsForList().range(base + ":ready", 0, -1)).as("groups waiting").isEqualTo(readyBefore);
			assertThat(this.template.opsForZSet().range(base + ":running", 0, -1)).as("leases, none swept").isEqualTo(runningBefore);
			assertThat(this.template.opsForZSet().range(base + ":delayed", 0, -1)).as("retries, none swept").isEqualTo(delayedBefore);
			Long idleAfter = this.template.getExpire(base + ":idle", TimeUnit.MILLISECONDS);
			assertThat(idleAfter).as("the idle mark left as it was (" + idleBefore + " ms)").isLessThanOrEqualTo(idleBefore);
		}
		else if (this.held.get(taken.task().id()) == null) {
			assertThat(readyBefore).as("groups waiting before a woken take started " + taken.task().id()).isNotEmpty();
			assertThat(taken.task().group()).as("a woken take starts the group that waited longest").isEqualTo(readyBefore.get(0));
		}
	}

	/** No take starts a task of a paused queue or group. */
	private void checkNotPaused(QueueScripts.Started task) {
		assertThat(this.queuePaused).as("task " + task.id() + " started while the queue is paused").isFalse();
		assertThat(this.pausedGroups).as("task " + task.id() + " started in a paused group").doesNotContain(task.group());
	}

	/** Fencing tokens increase with every start in a group; a take sent again answers the first's token. */
	private void checkToken(QueueScripts.Started task) {
		Long last = this.tokens.put(task.group(), task.fencingToken());
		if (last != null && !task.owner().equals(this.tokenOwners.get(task.group()))) {
			assertThat(task.fencingToken()).as("token of " + task.id() + " in " + task.group()).isGreaterThan(last);
		}
		this.tokenOwners.put(task.group(), task.owner());
	}

	private void ended(End end) {
		this.ends.add(end);
		if (this.ends.size() > 8) {
			this.ends.remove(0);
		}
	}

	/**
	 * An end sent again (its reply was lost): it answers as the first did (0 once the task is gone
	 * or was redriven since), whatever other owners did with the task since; an end of another kind
	 * by the same owner answers 0. Neither changes anything.
	 */
	private String replay(End end, boolean crossed) throws Exception {
		String taskKey = this.keys.base() + ":t:" + end.id();
		Map<Object, Object> before = this.template.opsForHash().entries(taskKey);
		String queuedBefore = this.template.opsForValue().get(this.keys.base() + ":queued");
		String what = crossed ? (end.what().equals("release") ? "fail" : "release") + " after its " + end.what()
				: end.what() + " sent again";
		long answer;
		if (!crossed) {
			answer = end.again().call();
		}
		else if (end.what().equals("release")) {
			answer = get(this.scripts.fail(this.keys, end.id(), end.owner(), "boom", MAX_ATTEMPTS, Duration.ZERO));
		}
		else {
			answer = get(this.scripts.release(this.keys, end.id(), end.owner(), "given back", MAX_ATTEMPTS));
		}
		boolean gone = this.discarded.contains(end.id());
		assertThat(answer).as(what + " of " + end.id() + " by " + end.owner())
			.isEqualTo((crossed || gone || this.forgotten.contains(end)) ? 0 : end.recorded());
		assertThat(this.template.opsForHash().entries(taskKey)).as("the task after " + what).isEqualTo(before);
		assertThat(this.template.opsForValue().get(this.keys.base() + ":queued")).isEqualTo(queuedBefore);
		return what + " of " + end.id() + " by " + end.owner();
	}

	/**
	 * The task and groups views agree with the stats: a running task whose lease ran out shows as
	 * queued, and its group as waiting for a worker.
	 */
	private void checkViews(Set<String> running, Set<String> lapsed, List<String> ready, Set<String> dead) throws Exception {
		for (String id : running) {
			List<QueueScripts.TaskFields> view = get(this.scripts.task(this.keys, id));
			assertThat(view).singleElement().extracting(QueueScripts.TaskFields::state)
				.as("task " + id + " as the view shows it (lease ran out: " + lapsed.contains(id) + ")")
				.isEqualTo(lapsed.contains(id) ? "QUEUED" : "RUNNING");
		}
		List<QueueScripts.TaskFields> deadView = get(this.scripts.dead(this.keys, dead.size() + 1));
		assertThat(deadView).extracting(QueueScripts.TaskFields::id).as("the dead letters view")
			.containsExactlyInAnyOrderElementsOf(dead);
		assertThat(deadView).extracting(QueueScripts.TaskFields::state).as("the dead letters' states").allMatch("DEAD"::equals);
		Map<String, QueueGroup> expected = new HashMap<>();
		for (String id : running) {
			String group = this.groupOf.get(id);
			long length = this.template.opsForList().size(this.keys.base() + ":g:" + group);
			boolean live = !lapsed.contains(id);
			expected.put(group, new QueueGroup(group, live ? length - 1 : length, live));
		}
		for (String group : ready) {
			long length = this.template.opsForList().size(this.keys.base() + ":g:" + group);
			expected.put(group, new QueueGroup(group, length, false));
		}
		assertThat(get(this.scripts.groups(this.keys, 100))).as("the groups view (running, lease ran out, waiting)")
			.containsExactlyInAnyOrderElementsOf(expected.values());
	}

	/**
	 * The backlog view (the console's retries and oldest task) agrees with a full read: the groups
	 * waiting for a retry, and the oldest of the first two tasks of every group (a group's oldest
	 * task, unless redrives put an older one further back; tasks never redriven are in submission
	 * order, see the invariants).
	 */
	private void checkBacklog(Set<String> delayed) throws Exception {
		List<String> groups = new ArrayList<>(new HashSet<>(this.groupOf.values()));
		// two pipelines: the first two tasks of every group, then when each was submitted
		List<Object> fronts = this.template.executePipelined((RedisCallback<Object>) (connection) -> {
			for (String group : groups) {
				connection.listCommands().lRange(bytes(this.keys.base() + ":g:" + group), 0, 1);
			}
			return null;
		});
		List<String> ids = new ArrayList<>();
		fronts.forEach((front) -> ((List<?>) front).forEach((id) -> ids.add((String) id)));
		List<Object> submitted = this.template.executePipelined((RedisCallback<Object>) (connection) -> {
			for (String id : ids) {
				connection.hashCommands().hGet(bytes(this.keys.base() + ":t:" + id), bytes("submitted"));
			}
			return null;
		});
		long oldest = submitted.stream().mapToLong((at) -> Long.parseLong((String) at)).min().orElse(-1);
		List<Long> backlog = get(this.scripts.backlog(this.keys, 100));
		assertThat(backlog.get(0)).as("retries waiting").isEqualTo(delayed.size());
		assertThat(backlog.get(1)).as("retries due now").isBetween(0L, (long) delayed.size());
		assertThat(backlog.get(2) == -1).as("no next retry exactly when none waits: " + backlog).isEqualTo(delayed.isEmpty());
		assertThat(backlog.get(3)).as("the oldest task at the front of a group").isEqualTo(oldest);
		assertThat(backlog.get(4)).as("every group read").isEqualTo(1L);
	}

	/**
	 * A finish, failure or release that was recorded, and the same call again; {@code recorded} is
	 * what the call answers when it is sent again.
	 */
	private record End(String what, String id, String owner, long recorded, Callable<Long> again) {
	}

	private void checkInvariants() throws Exception {
		String base = this.keys.base();
		this.states = states(this.submitted);
		List<String> ready = this.template.opsForList().range(base + ":ready", 0, -1);
		Set<String> delayed = this.template.opsForZSet().range(base + ":delayed", 0, -1);
		Set<String> running = this.template.opsForZSet().range(base + ":running", 0, -1);
		Set<String> dead = this.template.opsForZSet().range(base + ":dead", 0, -1);
		List<String> heldAside = this.template.opsForList().range(base + ":held", 0, -1);
		assertThat(ready).as("groups waiting for a worker: none paused (paused " + this.pausedGroups + ")")
			.noneMatch(this.pausedGroups::contains);
		assertThat(heldAside).as("groups waiting aside are paused (paused " + this.pausedGroups + ")")
			.allMatch(this.pausedGroups::contains);
		QueueScripts.Paused pauses = get(this.scripts.paused(this.keys));
		assertThat(pauses.queue()).as("the queue paused").isEqualTo(this.queuePaused);
		assertThat(pauses.groups()).as("the groups paused").isEqualTo(this.pausedGroups.stream().sorted().toList());
		Set<String> inGroups = new HashSet<>();
		long queued = 0;
		Set<String> groups = new HashSet<>(this.groupOf.values());
		for (String group : groups) {
			List<String> ids = this.template.opsForList().range(base + ":g:" + group, 0, -1);
			inGroups.addAll(ids);
			int runningHere = 0;
			for (int i = 0; i < ids.size(); i++) {
				String state = state(ids.get(i));
				if (state.equals("RUNNING")) {
					runningHere++;
					assertThat(i).as("the running task of " + group + " is its head").isZero();
				}
				else {
					assertThat(state).as("task " + ids.get(i) + " in group " + group).isEqualTo("QUEUED");
					queued++;
				}
			}
			assertThat(runningHere).as("tasks of " + group + " running").isLessThanOrEqualTo(1);
			long places = ready.stream().filter(group::equals).count() + heldAside.stream().filter(group::equals).count()
					+ (delayed.contains(group) ? 1 : 0) + runningHere;
			assertThat(places).as("places of group " + group + " with " + ids.size() + " task(s): ready " + ready
					+ ", aside " + heldAside + ", delayed " + delayed).isEqualTo(ids.isEmpty() ? 0 : 1);
			List<Integer> order = ids.stream().filter((id) -> !this.redriven.contains(id)).map(this.submitOrder::get).toList();
			assertThat(order).as("tasks of " + group + " never redriven, in submission order").isSorted();
		}
		Map<Object, Object> owners = new HashMap<>(this.template.opsForHash().entries(base + ":owners"));
		// the pause fields beside the owner ids (see queue-common.lua), read by every take in one call
		assertThat(owners.remove("~paused")).as("the queue's pause field").isEqualTo(this.queuePaused ? "1" : null);
		assertThat(owners.remove("~paused-groups")).as("the count of paused groups, no field at zero")
			.isEqualTo(this.pausedGroups.isEmpty() ? null : Integer.toString(this.pausedGroups.size()));
		for (String id : running) {
			assertThat(state(id)).isEqualTo("RUNNING");
			assertThat(inGroups).contains(id);
			// a take sent again must not start a task that no worker heard of: it would wait out a lease
			// it never ran under, and count an attempt
			Object owner = this.template.opsForHash().get(base + ":t:" + id, "owner");
			assertThat(owner).as("running task " + id + " is owned by the take its worker heard of").isEqualTo(this.held.get(id));
			assertThat(owners.get(owner)).as("the owners index names running task " + id).isEqualTo(id);
		}
		assertThat(owners).as("the owners index holds the running tasks' owners only").hasSize(running.size());
		String counted = this.template.opsForValue().get(base + ":queued");
		assertThat((counted == null) ? 0 : Long.parseLong(counted)).as("queued count").isEqualTo(queued);
		assertThat(counted).as("a queued count of zero is no key").isNotEqualTo("0");
		// leases are 1 ms (run out before the check) or a minute (live through it)
		List<Long> stats = get(this.scripts.stats(this.keys));
		long now = this.template.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		Set<String> lapsed = new HashSet<>();
		for (var lease : this.template.opsForZSet().rangeWithScores(base + ":running", 0, -1)) {
			if (lease.getScore() <= now) {
				lapsed.add(lease.getValue());
			}
		}
		long leased = running.size() - lapsed.size();
		assertThat(stats).as("stats: queued and groups waiting (lapsed leases with them), running under a live lease, dead")
			.containsExactly(queued + lapsed.size(), leased, (long) dead.size(), (long) ready.size() + lapsed.size());
		checkViews(running, lapsed, ready, dead);
		// every eighth check: the console's view, not the protocol, so it need not cost every step
		if (this.checks++ % 8 == 0) {
			checkBacklog(delayed);
		}
		for (String id : this.submitted) {
			if (this.discarded.contains(id)) {
				assertThat(this.states.get(id)).as("discarded task " + id + " is gone").isNull();
				assertThat(inGroups).doesNotContain(id);
				assertThat(dead).doesNotContain(id);
				continue;
			}
			String state = state(id);
			if (inGroups.contains(id)) {
				assertThat(state).isIn("QUEUED", "RUNNING");
			}
			else {
				assertThat(state).as("task " + id + " outside its group").isIn("DONE", "DEAD");
			}
			assertThat(dead.contains(id)).as("task " + id + " in the dead letters").isEqualTo(state.equals("DEAD"));
			assertThat(running.contains(id)).as("task " + id + " in the running set").isEqualTo(state.equals("RUNNING"));
		}
	}

	private String state(String id) {
		Object state = this.states.get(id);
		assertThat(state).as("task " + id + " is stored").isNotNull();
		return (String) state;
	}

	/** The state of each task, read in one pipeline. */
	private Map<String, Object> states(List<String> ids) {
		List<Object> read = this.template.executePipelined((RedisCallback<Object>) (connection) -> {
			for (String id : ids) {
				connection.hashCommands().hMGet(bytes(this.keys.base() + ":t:" + id), bytes("group"), bytes("state"));
			}
			return null;
		});
		Map<String, Object> states = new HashMap<>();
		for (int i = 0; i < ids.size(); i++) {
			List<?> fields = (List<?>) read.get(i);
			// a task never started holds no state: it is queued (see queue-common.lua)
			if (fields.get(0) != null) {
				states.put(ids.get(i), (fields.get(1) != null) ? fields.get(1) : "QUEUED");
			}
		}
		return states;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static <T> T get(CompletableFuture<T> reply) throws Exception {
		return reply.get(10, TimeUnit.SECONDS);
	}

}
