package dev.lockstep.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstep.GuardedJob;

/**
 * The application's guarded jobs by name: the {@link JobGuardAdvisor} adds each one as it finds
 * it on a bean being proxied (so the list is whole once the application context has started);
 * the {@link RedisJobGuard} announces them, records their runs and lists them. Public so that
 * the two can be wired to one list; applications read jobs through
 * {@link dev.lockstep.JobGuardRegistry#jobs()}.
 */
public final class GuardedJobs {

	private final Map<String, GuardedJob> byName = new ConcurrentHashMap<>();

	/** Every job found so far, by name. */
	public List<GuardedJob> all() {
		List<GuardedJob> jobs = new ArrayList<>(this.byName.values());
		jobs.sort((a, b) -> a.name().compareTo(b.name()));
		return jobs;
	}

	/** The job guarded under {@code name}, if one has been found. */
	public Optional<GuardedJob> find(String name) {
		return Optional.ofNullable(this.byName.get(name));
	}

	/**
	 * Adds {@code job}, or returns the one already there for the same method.
	 * @throws IllegalStateException if another method has the same guard name
	 */
	GuardedJob add(GuardedJob job) {
		GuardedJob existing = this.byName.putIfAbsent(job.name(), job);
		if (existing == null) {
			return job;
		}
		if (!existing.method().equals(job.method())) {
			throw new IllegalStateException("Two jobs use the guard name '" + job.name() + "': " + existing.method()
					+ " and " + job.method() + "; give one of them another @JobGuard(name = ...)");
		}
		return existing;
	}

}
