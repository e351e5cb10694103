package dev.lockstep.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import dev.lockstep.testing.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's {@link LockRegistryLeaderInitiator} on three application contexts sharing
 * one Redis through the auto-configured {@link LockstepLockRegistry}: one leader at a time, sampled
 * every 10ms, and a stopped leader replaced. A control with each context's own in-memory registry
 * shows the sampler sees more than one leader.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaderInitiatorTests {

	@Test
	void oneLeaderAtATimeAndAStoppedLeaderIsReplaced() {
		String keyPrefix = "li" + UUID.randomUUID().toString().substring(0, 8) + ":";
		List<ConfigurableApplicationContext> contexts = new ArrayList<>();
		try {
			for (int i = 1; i <= 3; i++) {
				contexts.add(new SpringApplicationBuilder(LeaderApplication.class).web(WebApplicationType.NONE)
					.properties("spring.main.banner-mode=off", "spring.data.redis.host=" + TestRedis.standalone().host(),
							"spring.data.redis.port=" + TestRedis.standalone().port(), "lockstep.key-prefix=" + keyPrefix,
							"lockstep.instance-id=instance-" + i)
					.run());
			}
			List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();
			for (ConfigurableApplicationContext context : contexts) {
				assertThat(context.getBean(LockRegistry.class)).isInstanceOf(LockstepLockRegistry.class);
				initiators.add(context.getBean(LockRegistryLeaderInitiator.class));
			}
			await(() -> leaders(initiators) == 1, "a leader elected");
			assertThat(mostLeadersSampled(initiators, Duration.ofSeconds(3))).isEqualTo(1);

			LockRegistryLeaderInitiator first = initiators.stream().filter((i) -> i.getContext().isLeader()).findFirst()
				.orElseThrow();
			first.stop();
			List<LockRegistryLeaderInitiator> rest = new ArrayList<>(initiators);
			rest.remove(first);
			await(() -> leaders(rest) == 1, "another leader after the first stopped");
			assertThat(first.getContext().isLeader()).isFalse();
			assertThat(mostLeadersSampled(initiators, Duration.ofSeconds(3))).isEqualTo(1);

			LockRegistryLeaderInitiator second = rest.stream().filter((i) -> i.getContext().isLeader()).findFirst()
				.orElseThrow();
			second.stop();
			rest.remove(second);
			await(() -> leaders(rest) == 1, "the last instance leading after the second stopped");
		}
		finally {
			contexts.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Test
	void withoutASharedRegistryTheSamplerSeesSeveralLeaders() {
		List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();
		try {
			for (int i = 1; i <= 3; i++) {
				LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(new DefaultLockRegistry(),
						new DefaultCandidate("instance-" + i, "leader"));
				initiator.start();
				initiators.add(initiator);
			}
			await(() -> leaders(initiators) == 3, "every instance leading");
			assertThat(mostLeadersSampled(initiators, Duration.ofMillis(500))).isGreaterThan(1);
		}
		finally {
			initiators.forEach(LockRegistryLeaderInitiator::stop);
		}
	}

	private static int leaders(List<LockRegistryLeaderInitiator> initiators) {
		int leaders = 0;
		for (LockRegistryLeaderInitiator initiator : initiators) {
			if (initiator.getContext().isLeader()) {
				leaders++;
			}
		}
		return leaders;
	}

	/** The most initiators that claimed to lead at one time, sampled every 10ms for {@code duration}. */
	private static int mostLeadersSampled(List<LockRegistryLeaderInitiator> initiators, Duration duration) {
		int most = 0;
		long end = System.nanoTime() + duration.toNanos();
		while (System.nanoTime() - end < 0) {
			most = Math.max(most, leaders(initiators));
			sleep(10);
		}
		return most;
	}

	private static void await(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as(what + " within 20s").isNegative();
			sleep(20);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class LeaderApplication {

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry,
				@Value("${lockstep.instance-id}") String instance) {
			return new LockRegistryLeaderInitiator(lockRegistry, new DefaultCandidate(instance, "leader"));
		}

	}

}
