package dev.lockstep.job;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.lettuce.core.RedisConnectionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstep.GuardedJob;
import dev.lockstep.internal.DurationText;

/**
 * Claims firings of guarded jobs for this instance (job-claim.lua): draws each claim's owner id,
 * waits for the reply at most the command timeout, and when it does not come, undoes the claim
 * should it still reach Redis (so that the slot is not lost and the guard not held by an owner
 * nobody renews) and skips a first firing rather than run it unguarded.
 */
final class FiringClaims {

	private static final Logger logger = LoggerFactory.getLogger(FiringClaims.class);

	private final GuardContext context;

	private final JobSkips skips;

	private final LongSupplier horizonMillis;

	private final SlotWindow window;

	/** Whether this instance's membership of a job was recorded (job-member.lua answered), by job name. */
	private final Predicate<String> member;

	private final AtomicLong sequence = new AtomicLong();

	/**
	 * Four random base-36 characters at the start of every owner id's sequence (a fixed width, so
	 * that they never run into the counter after them): two JVMs given one instance id share owner
	 * ids only if they draw the same four (1 in 1.7 million).
	 */
	private final String nonce = Long.toString(36L * 36 * 36 * 36 + ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36), 36)
		.substring(1);

	FiringClaims(GuardContext context, JobSkips skips, LongSupplier horizonMillis, SlotWindow window,
			Predicate<String> member) {
		this.context = context;
		this.skips = skips;
		this.horizonMillis = horizonMillis;
		this.window = window;
		this.member = member;
	}

	@Nullable JobClaim claim(GuardedJob job, @Nullable Long slot, JobScripts.Mode mode, @Nullable String holder) {
		this.skips.recordUnrecorded(job);
		String owner = this.context.instanceId() + ":" + this.nonce + Long.toString(this.sequence.incrementAndGet(), 36);
		CompletableFuture<List<Object>> sent = this.context.scripts().claim(this.context.keys(job),
				this.context.instanceId(), owner, job.lockAtMostFor().toMillis(), slot, mode, holder,
				JobRunner.livenessMillis(), this.horizonMillis.getAsLong(),
				(slot != null) ? this.window.latestStart(job, slot) : null, this.window.skewTolerance().toMillis(),
				this.member.test(job.name()));
		List<Object> reply = null;
		String failure = null;
		String cause = null;
		try {
			reply = sent.get(this.context.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			sent.cancel(false);
		}
		catch (TimeoutException ex) {
			sent.cancel(false);
			failure = "Redis could not be reached within lockstep.command-timeout ("
					+ DurationText.of(this.context.commandTimeout()) + ")";
			cause = failure;
		}
		catch (Exception ex) {
			sent.cancel(false);
			// not a timeout: name what failed (a connection reset, a script error), not the timeout
			Throwable error = (ex instanceof ExecutionException && ex.getCause() != null) ? ex.getCause() : ex;
			cause = error.toString();
			// a connection Lettuce knows is down fails at once (RedisScripts): Redis was not reached
			failure = (error instanceof RedisConnectionException) ? "Redis could not be reached: "
					+ error.getMessage() : "Redis failed: " + cause;
		}
		if (reply == null) {
			if (failure != null) {
				logger.warn("{} failed while claiming a firing of job '{}'; {}: {}", this.context.redis(), job.name(),
						(mode == JobScripts.Mode.FIRST) ? "the firing does not run" : "will try again", cause);
			}
			// The claim may still reach Redis later: undo it then, so that the slot is not lost and the
			// guard not held for lockAtMostFor by an owner nobody renews.
			this.context.scripts().unclaim(this.context.keys(job), owner, this.context.instanceId(), slot);
			if (mode == JobScripts.Mode.FIRST && failure != null) {
				this.skips.skippedUnrecorded(job, slot, failure);
			}
			return null;
		}
		return JobClaim.of(owner, reply);
	}

}
