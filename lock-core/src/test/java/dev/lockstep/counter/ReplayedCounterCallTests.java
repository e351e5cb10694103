package dev.lockstep.counter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisFixture;
import dev.lockstep.testing.FaultProxy;
import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A counter call whose reply a cut connection lost is sent again by Lettuce after the reconnect:
 * Redis runs its script twice and the caller hears only the second reply, in time (nothing timed
 * out). Every call carries a record (the caller's idempotency id, or an id the service drew for
 * it), so the call sent again answers as the first did and counts nothing more. Before, an
 * increment was counted twice (or heard refused when it had taken the last place), and a
 * decrement taken twice let more in than the limit (field report 4's failure).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplayedCounterCallTests {

	@RegisterExtension
	final RedisFixture redis = new RedisFixture();

	private final List<AutoCloseable> closing = new ArrayList<>();

	private FaultProxy proxy;

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closing) {
			closeable.close();
		}
	}

	private LettuceConnectionFactory factory(boolean throughProxy) {
		if (throughProxy && this.proxy == null) {
			this.proxy = FaultProxy.start(TestRedis.standalone().host(), TestRedis.standalone().port());
			this.closing.add(this.proxy);
		}
		LettuceConnectionFactory factory = throughProxy ? RedisConnections.standalone(this.proxy.host(), this.proxy.port())
				: RedisConnections.standalone();
		this.closing.add(factory::destroy);
		return factory;
	}

	private RedisCounters counters(boolean throughProxy) {
		RedisCounters counters = new RedisCounters(factory(throughProxy));
		counters.setKeyPrefix(this.redis.prefix());
		this.closing.add(counters);
		// connected and the scripts loaded before any latency: the calls below go by SHA at once
		counters.preload();
		counters.current("warm-up");
		return counters;
	}

	/**
	 * Sends {@code call} with its reply held back, waits until Redis shows it ran ({@code ran}),
	 * then cuts the connection: Lettuce sends the call again after reconnecting, and the caller
	 * hears that reply.
	 */
	private <T> T replayed(Supplier<T> call, BooleanSupplier ran) throws Exception {
		this.proxy.latency(Duration.ZERO, Duration.ofMillis(1500));
		CompletableFuture<T> caller = CompletableFuture.supplyAsync(call);
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(2)).until(ran::getAsBoolean);
		assertThat(caller).as("the first reply is still on its way").isNotDone();
		this.proxy.cutAll();
		this.proxy.heal();
		return caller.get(15, TimeUnit.SECONDS);
	}

	/**
	 * Field report 4 with one place left: the caller's increment takes it, the reply is lost, the
	 * increment sent again finds the event full and the caller hears "refused". It throws
	 * EventFullException and never decrements; the place stays taken by nobody.
	 */
	@Test
	void anIncrementSentAgainIsNotHeardRefusedWhenItTookThePlace() throws Exception {
		RedisCounters cutOff = counters(true);
		RedisCounters healthy = counters(false);
		assertThat(healthy.tryIncrement("signup:e1", 2)).isTrue();
		boolean added = replayed(() -> cutOff.tryIncrement("signup:e1", 2), () -> healthy.current("signup:e1") == 2);
		assertThat(healthy.current("signup:e1")).as("places taken (2 means the caller's: it was told " + added + ")")
			.isEqualTo(added ? 2 : 1);
	}

	/** Without a limit in reach the same replay counts one sign-up twice. */
	@Test
	void anIncrementSentAgainCountsOnce() throws Exception {
		RedisCounters cutOff = counters(true);
		RedisCounters healthy = counters(false);
		boolean added = replayed(() -> cutOff.tryIncrement("signup:e2", 100), () -> healthy.current("signup:e2") == 1);
		assertThat(added).isTrue();
		assertThat(healthy.current("signup:e2")).as("count after one increment heard as added").isEqualTo(1);
	}

	/** With the caller's idempotency id, as before. */
	@Test
	void anIncrementWithAnIdempotencyIdSentAgainCountsOnce() throws Exception {
		RedisCounters cutOff = counters(true);
		RedisCounters healthy = counters(false);
		assertThat(healthy.tryIncrement("signup:e4", 2)).isTrue();
		boolean added = replayed(() -> cutOff.tryIncrement("signup:e4", 1, 2, "message-1"),
				() -> healthy.current("signup:e4") == 2);
		assertThat(added).isTrue();
		assertThat(healthy.current("signup:e4")).isEqualTo(2);
	}

	/**
	 * A call whose caller stopped waiting (its reply later than the command timeout) is cancelled:
	 * Lettuce does not send it again after the reconnect, once its record is gone either (before,
	 * it did, until the client's own timeout: a minute by default).
	 */
	@Test
	void aCallTheCallerStoppedWaitingForIsNotSentAgainAfterItsRecordRanOut() throws Exception {
		RedisCounters cutOff = counters(true);
		cutOff.setCommandTimeout(Duration.ofMillis(500));
		RedisCounters healthy = counters(false);
		this.proxy.latency(Duration.ZERO, Duration.ofMillis(4_000));
		CompletableFuture<Boolean> caller = CompletableFuture.supplyAsync(() -> cutOff.tryIncrement("signup:e5", 100));
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(2)).until(() -> healthy.current("signup:e5") == 1);
		assertThat(caller).failsWithin(Duration.ofSeconds(5)).withThrowableThat().withMessageContaining("did not answer within");
		// the call's record (twice the 500 ms command timeout) has run out: a call sent again would count
		Thread.sleep(1_500);
		this.proxy.cutAll();
		this.proxy.heal();
		// the connection is back (a reconnect sends again whatever it would); until Lettuce has
		// reconnected, calls fail at once
		await().atMost(Duration.ofSeconds(10))
			.ignoreException(dev.lockstep.LockUnavailableException.class)
			.until(() -> cutOff.current("signup:e5") == 1);
		Thread.sleep(500);
		assertThat(healthy.current("signup:e5")).as("count after one increment that timed out").isEqualTo(1);
	}

	/**
	 * Two places, two sign-ups; one cancels and its decrement is sent again: the count drops to 0
	 * while one participant remains, and two more sign-ups are let in: 3 participants for 2 places,
	 * field report 4's failure, which Counters exist to prevent. A decrement takes no idempotency id.
	 */
	@Test
	void aDecrementSentAgainDoesNotLetMoreInThanTheLimit() throws Exception {
		RedisCounters cutOff = counters(true);
		RedisCounters healthy = counters(false);
		assertThat(healthy.tryIncrement("signup:e3", 2)).isTrue();
		assertThat(healthy.tryIncrement("signup:e3", 2)).isTrue();
		replayed(() -> cutOff.decrement("signup:e3"), () -> healthy.current("signup:e3") == 1);
		int participants = 1;
		for (int i = 0; i < 2; i++) {
			if (healthy.tryIncrement("signup:e3", 2)) {
				participants++;
			}
		}
		assertThat(participants).as("participants for 2 places").isLessThanOrEqualTo(2);
	}

}
