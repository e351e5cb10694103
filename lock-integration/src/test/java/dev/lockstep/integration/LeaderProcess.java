package dev.lockstep.integration;

import java.util.List;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import dev.lockstep.autoconfigure.LockstepAutoConfiguration;
import dev.lockstep.testing.EventLog;

/**
 * An application instance in a JVM of its own electing a leader as a Spring Integration user does:
 * a {@link LockRegistryLeaderInitiator} for role {@code leader} over the application's
 * {@link LockRegistry} bean, which the auto-configuration makes a {@link LockstepLockRegistry}
 * (watchdog lease {@code lockstep.lock.lease-time=2s}). As a control, a second initiator, role
 * {@code unshared}, elects over an in-memory registry of its own JVM. Every leadership event is
 * recorded in an {@link EventLog} on Redis's clock: {@code granted|revoked <role> <instance>}.
 * The test drives the {@code leader} initiator through budgets in the log: {@code stop-<instance>},
 * {@code start-<instance>}, {@code yield-<instance>}, each answered by {@code done <command> <instance>}.
 * Prints {@code STARTED <instance> <LockRegistry class>} once up.
 * Arguments: Redis host, port, key prefix, instance id.
 */
final class LeaderProcess {

	/** The heartbeat of the initiators: how long each try waits, and how often the leader checks its lock. */
	static final long HEARTBEAT_MILLIS = 300;

	/** The watchdog lease of the registry's locks. */
	static final long LEASE_MILLIS = 2000;

	static EventLog log;

	static String instance;

	private LeaderProcess() {
	}

	public static void main(String[] args) throws Exception {
		log = EventLog.open(args[0], Integer.parseInt(args[1]), args[2] + "events");
		instance = args[3];
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.main.banner-mode=off", "spring.data.redis.host=" + args[0],
					"spring.data.redis.port=" + args[1], "lockstep.key-prefix=" + args[2],
					"lockstep.instance-id=" + instance, "lockstep.lock.lease-time=" + LEASE_MILLIS + "ms",
					"lockstep.lock.shutdown-timeout=0s")
			.run();
		System.out.println("STARTED " + instance + " " + context.getBean(LockRegistry.class).getClass().getSimpleName());
		LockRegistryLeaderInitiator initiator = context.getBean("leaderInitiator", LockRegistryLeaderInitiator.class);
		while (true) {
			for (String command : List.of("stop", "start", "yield")) {
				if (log.take(command + "-" + instance) >= 0) {
					switch (command) {
						case "stop" -> initiator.stop();
						case "start" -> initiator.start();
						default -> initiator.getContext().yield();
					}
					log.append("done", command, instance);
				}
			}
			Thread.sleep(50);
		}
	}

	/** Only the auto-configurations this needs, for a quick start: Redis, Lockstep, and the registry's. */
	@SpringBootConfiguration
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LockstepAutoConfiguration.class,
			LockstepIntegrationAutoConfiguration.class })
	static class Application {

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry) {
			return initiator(lockRegistry, "leader");
		}

		@Bean
		LockRegistryLeaderInitiator unsharedInitiator() {
			return initiator(new DefaultLockRegistry(), "unshared");
		}

		private static LockRegistryLeaderInitiator initiator(LockRegistry<?> registry, String role) {
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry,
					new DefaultCandidate(instance, role));
			initiator.setHeartBeatMillis(HEARTBEAT_MILLIS);
			initiator.setBusyWaitMillis(50);
			return initiator;
		}

		@EventListener
		void onLeadership(AbstractLeaderEvent event) {
			String kind = (event instanceof OnGrantedEvent) ? "granted"
					: (event instanceof OnRevokedEvent) ? "revoked" : event.getClass().getSimpleName();
			log.append(kind, event.getRole(), instance);
		}

	}

}
