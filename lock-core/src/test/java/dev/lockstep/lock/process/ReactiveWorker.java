package dev.lockstep.lock.process;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.ReactiveLockService;
import dev.lockstep.annotation.DistributedLock;
import dev.lockstep.aop.LockAnnotationProxies;
import dev.lockstep.lock.RedisConnections;
import dev.lockstep.lock.RedisLockService;

/**
 * A child JVM standing for one instance of a reactive application:
 * {@code <host> <port> <prefix> <workers> <calls> <keys>}. Once {@code workers} processes are
 * ready, subscribes {@code calls} calls at once of a {@code @DistributedLock} method returning
 * {@code Mono}, spread over {@code keys} keys, each a {@link SectionProbe} section (probe keys
 * under {@code <prefix>probe:}); then, as the control, once all are ready again, as many calls of
 * the same method without the annotation on one key (under {@code <prefix>control:}). Prints
 * {@code SUMMARY sections=.. overlaps=.. regressions=.. errors=.. controlOverlaps=..} and exits 0.
 */
final class ReactiveWorker {

	private ReactiveWorker() {
	}

	public static void main(String[] args) {
		LockingWorker.haltWhenOrphaned();
		String prefix = args[2];
		int workers = Integer.parseInt(args[3]);
		int calls = Integer.parseInt(args[4]);
		int keys = Integer.parseInt(args[5]);
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("worker", Map.of("worker.host", args[0],
				"worker.port", args[1], "worker.prefix", prefix)));
		context.register(Application.class);
		context.refresh();
		Sections sections = context.getBean(Sections.class);
		SectionProbe probe = context.getBean("probe", SectionProbe.class);
		SectionProbe control = context.getBean("control", SectionProbe.class);
		AtomicInteger errors = new AtomicInteger();
		probe.awaitWorkers(workers, Duration.ofSeconds(60));
		Long done = Flux.range(0, calls)
			.flatMap((call) -> sections.section("key-" + (call % keys)).onErrorResume((ex) -> {
				errors.incrementAndGet();
				ex.printStackTrace(System.out);
				return Mono.empty();
			}), calls)
			.count()
			.block(Duration.ofMinutes(2));
		control.awaitWorkers(workers, Duration.ofSeconds(60));
		Flux.range(0, calls).flatMap((call) -> sections.unlocked(control, "key-0"), calls).blockLast(Duration.ofMinutes(2));
		System.out.println("SUMMARY sections=" + done + " overlaps=" + probe.overlaps() + " regressions="
				+ probe.regressions() + " errors=" + errors + " controlOverlaps=" + control.overlaps());
		System.out.flush();
		context.close();
		System.exit(0);
	}

	/** The method under test. */
	static class Sections {

		private final SectionProbe probe;

		Sections(SectionProbe probe) {
			this.probe = probe;
		}

		@DistributedLock(name = "probe", key = "#key", waitTime = "60s")
		public Mono<Long> section(String key) {
			return ReactiveLockService.current().flatMap((handle) -> probed(this.probe, key, handle.fencingToken()));
		}

		public Mono<Long> unlocked(SectionProbe probe, String key) {
			return probed(probe, key, 0);
		}

		/** The probe talks to Redis through a blocking template, so it runs where blocking is allowed. */
		private static Mono<Long> probed(SectionProbe probe, String key, long token) {
			return Mono.fromCallable(() -> {
				probe.section(key, token);
				return token;
			}).subscribeOn(Schedulers.boundedElastic());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(LockAnnotationProxies.class)
	static class Application {

		@Bean(destroyMethod = "destroy")
		LettuceConnectionFactory connectionFactory(Environment environment) {
			return RedisConnections.standalone(environment.getRequiredProperty("worker.host"),
					environment.getRequiredProperty("worker.port", Integer.class));
		}

		@Bean
		RedisLockService lockService(LettuceConnectionFactory connectionFactory, Environment environment) {
			return RedisConnections.lockService(connectionFactory,
					LockingWorker.lockPrefix(environment.getRequiredProperty("worker.prefix")), (settings) -> {
					});
		}

		@Bean
		StringRedisTemplate probeRedis(Environment environment) {
			// a connection of its own, never through the lock
			StringRedisTemplate redis = new StringRedisTemplate(RedisConnections.standalone(
					environment.getRequiredProperty("worker.host"), environment.getRequiredProperty("worker.port", Integer.class)));
			redis.afterPropertiesSet();
			return redis;
		}

		@Bean
		SectionProbe probe(StringRedisTemplate probeRedis, Environment environment) {
			return new SectionProbe(probeRedis, environment.getRequiredProperty("worker.prefix") + "probe:");
		}

		@Bean
		SectionProbe control(StringRedisTemplate probeRedis, Environment environment) {
			return new SectionProbe(probeRedis, environment.getRequiredProperty("worker.prefix") + "control:");
		}

		@Bean
		Sections sections(@org.springframework.beans.factory.annotation.Qualifier("probe") SectionProbe probe) {
			return new Sections(probe);
		}

	}

}
