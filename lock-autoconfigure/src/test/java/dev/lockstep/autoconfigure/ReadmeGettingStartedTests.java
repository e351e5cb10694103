package dev.lockstep.autoconfigure;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

import dev.lockstep.GuardedJob;
import dev.lockstep.JobGuardRegistry;
import dev.lockstep.LockHandle;
import dev.lockstep.LockService;
import dev.lockstep.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's getting-started application, taken from the README as written (its Java block and
 * its {@code application.yml}), compiled as a Spring Boot project compiles it (with
 * {@code -parameters}) and started against a real Redis on a port that is not the default: its
 * lock holds a second caller back until the first releases, and its job is guarded.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReadmeGettingStartedTests {

	private static final Pattern JAVA_BLOCK = Pattern.compile("## Getting started.*?```java\\n(.*?)```", Pattern.DOTALL);

	private static final Pattern YAML_BLOCK = Pattern.compile("## Getting started.*?```yaml\\n(.*?)```", Pattern.DOTALL);

	@Test
	void theGettingStartedApplicationStartsAndItsLockAndJobGuardWork(@TempDir Path work) throws Exception {
		String readme = Files.readString(readme(), StandardCharsets.UTF_8);
		String java = block(JAVA_BLOCK, readme, "Java");
		String yaml = block(YAML_BLOCK, readme, "application.yml");
		assertThat(java).contains("package com.example.shop;", "@EnableScheduling", "@DistributedLock", "@JobGuard");
		Path sources = work.resolve("src/com/example/shop");
		Files.createDirectories(sources);
		Files.writeString(sources.resolve("ShopApplication.java"), java);
		Path classes = Files.createDirectories(work.resolve("classes"));
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		int compiled = javac.run(null, null, null, "-parameters", "-proc:none", "-classpath",
				System.getProperty("java.class.path"), "-d", classes.toString(),
				sources.resolve("ShopApplication.java").toString());
		assertThat(compiled).as("javac's exit code for the README's application").isZero();
		Path config = work.resolve("application.yml");
		Files.writeString(config, yaml);
		try (RedisServer redis = RedisServer.start();
				URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
						getClass().getClassLoader())) {
			assertThat(redis.port()).as("a port that is not Redis's default").isNotEqualTo(6379);
			Class<?> application = loader.loadClass("com.example.shop.ShopApplication");
			SpringApplication app = new SpringApplication(application);
			app.setResourceLoader(new DefaultResourceLoader(loader));
			try (ConfigurableApplicationContext context = app.run("--spring.config.location=" + config.toUri(),
					"--spring.data.redis.port=" + redis.port(), "--spring.main.web-application-type=none")) {
				Class<?> ordersType = loader.loadClass("com.example.shop.Orders");
				Object orders = context.getBean(ordersType);
				assertThat(AopUtils.isAopProxy(orders)).as("Orders is advised").isTrue();
				assertThat(context.getBean(LockstepInstanceId.class).value()).isEqualTo("shop-1");
				assertThat(context.getBean(JobGuardRegistry.class).jobs()).extracting(GuardedJob::name)
					.contains("Orders.sendReminders");
				Method pay = ordersType.getMethod("pay", String.class);
				pay.setAccessible(true);
				LockService locks = context.getBean(LockService.class);
				CompletableFuture<Void> second;
				try (LockHandle first = locks.acquire("Orders.pay:order-42", Duration.ZERO)) {
					second = CompletableFuture.runAsync(() -> invoke(pay, orders, "order-42"));
					Thread.sleep(300);
					assertThat(second).as("a second caller of the same order while the first holds it").isNotDone();
				}
				second.get(10, TimeUnit.SECONDS);
				invoke(pay, orders, "order-43");
			}
		}
	}

	private static void invoke(Method method, Object target, String argument) {
		try {
			method.invoke(target, argument);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String block(Pattern pattern, String readme, String what) {
		Matcher matcher = pattern.matcher(readme);
		assertThat(matcher.find()).as("the README's getting-started %s block", what).isTrue();
		return matcher.group(1);
	}

	private static Path readme() throws IOException {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			Path candidate = dir.resolve("README.md");
			if (Files.exists(candidate) && Files.exists(dir.resolve("lock-core"))) {
				return candidate;
			}
		}
		throw new IOException("README.md of the repository not found above " + Path.of("").toAbsolutePath());
	}

}
