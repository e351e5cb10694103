package dev.lockstep.counter;

import java.util.List;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import dev.lockstep.counter.CountingFleet.Report;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Field report 4's sign-up limit across three instances in JVMs of their own, sixteen threads
 * each: the tests, run on standalone Redis and on a Redis Cluster by the classes that extend this.
 */
abstract class CounterProcessContract {

	static final int CALLS = 1_000;

	static final int LIMIT = 500;

	abstract CountingFleet fleet();

	abstract RedisCounters counters();

	@Test
	void threeInstancesIncrementingAThousandTimesEachAtOnceTakeExactlyTheLimit() {
		List<Report> reports = fleet().run("count signup:all " + LIMIT + " " + CALLS);
		assertThat(reports).allSatisfy((report) -> assertThat(report.failed()).isZero());
		int added = reports.stream().mapToInt(Report::added).sum();
		int refused = reports.stream().mapToInt(Report::refused).sum();
		assertThat(added).as("increments answered added by %s%n%s", reports, fleet().outputs()).isEqualTo(LIMIT);
		assertThat(refused).isEqualTo(CountingFleet.INSTANCES * CALLS - LIMIT);
		assertThat(counters().current("signup:all")).isEqualTo(LIMIT);
		assertThat(reports.stream().filter((report) -> report.added() > 0))
			.as("instances that took places: they called at once").hasSizeGreaterThan(1);
	}

	@Test
	void retriedIncrementsWithOneIdempotencyIdCountOnceWhicheverInstanceSendsThem() {
		// each instance sends every id, twice, in an order of its own: 6 calls per id, one counted
		List<Report> reports = fleet().run("retry signup:retried " + LIMIT + " " + CALLS + " 1",
				"retry signup:retried " + LIMIT + " " + CALLS + " 2", "retry signup:retried " + LIMIT + " " + CALLS + " 3");
		assertThat(reports).allSatisfy((report) -> assertThat(report.problems()).as(fleet().outputs()).isEmpty());
		assertThat(counters().current("signup:retried")).isEqualTo(LIMIT);
		TreeSet<Integer> addedAnywhere = new TreeSet<>();
		reports.forEach((report) -> addedAnywhere.addAll(report.ids()));
		assertThat(addedAnywhere).as("ids counted").hasSize(LIMIT);
		assertThat(reports).as("every instance got the first answer for every id: added for the same %d ids", LIMIT)
			.allSatisfy((report) -> assertThat(report.ids()).isEqualTo(addedAnywhere));
	}

	/**
	 * The control: the same three instances with field report 4's read-add-write sell more places
	 * than the limit, so the test above would notice a counter that lost updates.
	 */
	@Test
	void theControlReadAddWriteSellsMoreThanTheLimitUnderTheSameLoad() {
		List<Report> reports = fleet().run("read-add-write signup:naive " + LIMIT + " " + CALLS);
		int added = reports.stream().mapToInt(Report::added).sum();
		assertThat(added).as("places sold by read-add-write").isGreaterThan(LIMIT);
	}

}
