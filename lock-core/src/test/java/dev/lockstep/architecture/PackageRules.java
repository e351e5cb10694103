package dev.lockstep.architecture;

import java.util.List;

import com.tngtech.archunit.lang.ArchRule;

import static dev.lockstep.testing.ImportRules.onlyImports;

/**
 * What each package of lock-core may import of Lockstep (ARCHITECTURE.md, "Packages of
 * lock-core"). "API" is the package {@code dev.lockstep} itself; "internal" is
 * {@code dev.lockstep.internal} and the packages under it.
 */
final class PackageRules {

	private static final String API = "dev.lockstep";

	private static final String INTERNAL = "dev.lockstep.internal..";

	private static final String ANNOTATIONS = "dev.lockstep.annotation..";

	private static final String AOP = "dev.lockstep.aop..";

	static final ArchRule API_PACKAGE = onlyImports("dev.lockstep", "dev.lockstep.internal");

	static final ArchRule ANNOTATION = onlyImports(ANNOTATIONS);

	static final ArchRule ADVISORS = onlyImports(AOP, API, ANNOTATIONS, "dev.lockstep.lock..", "dev.lockstep.group..",
			INTERNAL);

	static final ArchRule LOCK = onlyImports("dev.lockstep.lock..", API, INTERNAL);

	static final ArchRule GROUP = onlyImports("dev.lockstep.group..", API, INTERNAL);

	static final ArchRule JOB = onlyImports("dev.lockstep.job..", API, ANNOTATIONS, AOP, INTERNAL);

	static final ArchRule QUEUE = onlyImports("dev.lockstep.queue..", API, ANNOTATIONS, INTERNAL);

	static final ArchRule COUNTER = onlyImports("dev.lockstep.counter..", API, INTERNAL);

	static final ArchRule RATE_LIMIT = onlyImports("dev.lockstep.ratelimit..", API, ANNOTATIONS, AOP, INTERNAL);

	static final ArchRule FENCING = onlyImports("dev.lockstep.fencing..", API, INTERNAL);

	static final ArchRule INTERNAL_REDIS = onlyImports("dev.lockstep.internal.redis..", "dev.lockstep.internal");

	static final ArchRule INTERNAL_SPEL = onlyImports("dev.lockstep.internal.spel..", API);

	static final ArchRule INTERNAL_PACKAGE = onlyImports("dev.lockstep.internal", API);

	private PackageRules() {
	}

	static List<ArchRule> all() {
		return List.of(API_PACKAGE, ANNOTATION, ADVISORS, LOCK, GROUP, JOB, QUEUE, COUNTER, RATE_LIMIT, FENCING,
				INTERNAL_REDIS, INTERNAL_SPEL, INTERNAL_PACKAGE);
	}

}
