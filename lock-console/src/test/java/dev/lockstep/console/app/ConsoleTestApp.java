package dev.lockstep.console.app;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.SerialQueue;
import dev.lockstep.SerialTask;
import dev.lockstep.annotation.JobGuard;
import dev.lockstep.annotation.SerialQueueListener;

/**
 * The application the console tests run three of: a queue listener that prints each task it runs
 * (and fails tasks whose payload starts with {@code fail} until the key {@code console-test:healed}
 * exists), one whose tasks always fail (queue {@code retrying}), a guarded job (on the instances
 * started with {@code console-test.report=true}), users {@code viewer} and {@code operator}, and test endpoints under
 * {@code /test} (its own security chain: open) to submit tasks and hold locks.
 */
@SpringBootApplication
@EnableScheduling
public class ConsoleTestApp {

	public static void main(String[] args) {
		SpringApplication.run(ConsoleTestApp.class, args);
	}

	@Bean
	InMemoryUserDetailsManager users() {
		return new InMemoryUserDetailsManager(
				User.withUsername("viewer").password("{noop}viewer-secret").roles("LOCKSTEP_VIEWER").build(),
				User.withUsername("operator").password("{noop}operator-secret").roles("LOCKSTEP_OPERATOR").build());
	}

	@Bean
	@Order(1)
	SecurityFilterChain testEndpoints(HttpSecurity http) throws Exception {
		return http.securityMatcher("/test/**")
			.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
			.csrf((csrf) -> csrf.disable())
			.build();
	}

	@Component
	static class Worker {

		private final StringRedisTemplate redis;

		Worker(StringRedisTemplate redis) {
			this.redis = redis;
		}

		/** Always fails: its tasks wait for a retry (the test JVMs give this queue a long backoff). */
		@SerialQueueListener(queue = "retrying")
		void retry(String payload, SerialTask task) {
			System.out.println("FAILED " + task.group() + " " + payload);
			throw new IllegalStateException("never runs: " + payload);
		}

		@SerialQueueListener(queue = "work")
		void run(String payload, SerialTask task) {
			if (payload.startsWith("fail") && !Boolean.TRUE.equals(this.redis.hasKey("console-test:healed"))) {
				System.out.println("FAILED " + task.group() + " " + payload);
				throw new IllegalStateException("not healed yet: " + payload);
			}
			this.redis.opsForList().rightPush("console-test:ran:" + task.group(), payload);
			System.out.println("RAN " + task.group() + " " + payload);
		}

	}

	/** Only on the instances started with {@code console-test.report=true}. */
	@Component
	@ConditionalOnBooleanProperty("console-test.report")
	static class Report {

		@JobGuard(name = "report")
		@Scheduled(cron = "0 0 3 * * *")
		public void report() {
			System.out.println("REPORT ran");
		}

	}

	@RestController
	static class TestEndpoints {

		private final SerialQueue queue;

		private final LockService locks;

		TestEndpoints(SerialQueue queue, LockService locks) {
			this.queue = queue;
			this.locks = locks;
		}

		@GetMapping("/test/submit")
		String submit(@RequestParam(defaultValue = "work") String queue, @RequestParam String group,
				@RequestParam String payload) {
			return this.queue.submit(queue, group, payload);
		}

		/**
		 * Takes {@code key} (waiting up to 10 s), answers its token once taken, and releases it
		 * {@code millis} later on a thread of its own.
		 */
		/** Takes one of {@code permits} permits of {@code key} on a thread of its own and holds it until the JVM ends. */
		@GetMapping("/test/permit")
		String permit(@RequestParam String key, @RequestParam int permits) throws Exception {
			CompletableFuture<String> token = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				try (LockHandle held = this.locks.acquirePermit(key, permits, Duration.ofSeconds(10))) {
					token.complete(Long.toString(held.fencingToken()));
					Thread.sleep(Long.MAX_VALUE);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				catch (RuntimeException ex) {
					token.complete("none: " + ex.getMessage());
				}
			}, "permit-" + key);
			thread.setDaemon(true);
			thread.start();
			return token.get(20, TimeUnit.SECONDS);
		}

		@GetMapping("/test/hold-for")
		String holdFor(@RequestParam String key, @RequestParam long millis) throws Exception {
			CompletableFuture<String> token = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				Optional<LockHandle> handle = this.locks.tryAcquire(key, Duration.ofSeconds(10), Duration.ofMinutes(1));
				token.complete(handle.map((held) -> Long.toString(held.fencingToken())).orElse("none"));
				handle.ifPresent((held) -> {
					try {
						Thread.sleep(millis);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					held.close();
				});
			}, "holder-for-" + key);
			thread.setDaemon(true);
			thread.start();
			return token.get(20, TimeUnit.SECONDS);
		}

		/** Takes {@code key} on a thread of its own, with a lease of ten minutes, and holds it until the JVM ends. */
		@GetMapping("/test/hold")
		String hold(@RequestParam String key) throws InterruptedException {
			StringBuilder token = new StringBuilder();
			Thread thread = new Thread(() -> {
				Optional<LockHandle> handle = this.locks.tryAcquire(key, Duration.ofSeconds(5), Duration.ofMinutes(10));
				synchronized (token) {
					token.append(handle.map((held) -> Long.toString(held.fencingToken())).orElse("none"));
					token.notifyAll();
				}
				if (handle.isPresent()) {
					try {
						Thread.sleep(Long.MAX_VALUE);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
			}, "holder-" + key);
			thread.setDaemon(true);
			thread.start();
			synchronized (token) {
				while (token.isEmpty()) {
					token.wait(10_000);
				}
			}
			return token.toString();
		}

	}

}
