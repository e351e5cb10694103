package dev.lockstep.sample.push;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CronFiringsTests {

	private static final ZonedDateTime NOW = ZonedDateTime.of(2026, 3, 10, 8, 0, 7, 300_000_000, ZoneOffset.UTC);

	@Test
	void frequentCronGivesTheFiringJustBefore() {
		assertThat(new CronFirings("*/5 * * * * *").latestAtOrBefore(NOW)).isEqualTo(NOW.withSecond(5).withNano(0));
	}

	@Test
	void aFiringExactlyNowCounts() {
		ZonedDateTime firing = NOW.withSecond(5).withNano(0);
		assertThat(new CronFirings("*/5 * * * * *").latestAtOrBefore(firing)).isEqualTo(firing);
	}

	@Test
	void dailyCronLooksBackToYesterday() {
		assertThat(new CronFirings("0 30 8 * * *").latestAtOrBefore(NOW))
			.isEqualTo(ZonedDateTime.of(2026, 3, 9, 8, 30, 0, 0, ZoneOffset.UTC));
	}

	@Test
	void yearlyCronLooksBackAYear() {
		assertThat(new CronFirings("0 0 0 1 6 *").latestAtOrBefore(NOW))
			.isEqualTo(ZonedDateTime.of(2025, 6, 1, 0, 0, 0, 0, ZoneOffset.UTC));
	}

}
