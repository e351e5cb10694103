package dev.lockstep.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;

import org.springframework.boot.SpringApplication;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * What a figure depends on besides the code: the machine, the JVM, the Redis server and the
 * versions of the libraries, for the head of the report.
 * @param machine cores, operating system and architecture
 * @param jvm the JVM's name and version
 * @param redis the Redis version and binary
 * @param libraries the library versions
 */
record BenchmarkEnvironment(String machine, String jvm, String redis, String libraries) {

	static BenchmarkEnvironment describe(BenchmarkRedis redis) {
		String machine = Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name") + " "
				+ System.getProperty("os.version") + " " + System.getProperty("os.arch");
		String jvm = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
		String server = redis.version() + " (" + redis.binary() + ") on loopback";
		String libraries = "Lockstep " + lockstepVersion() + ", Redisson " + version(Redisson.class)
				+ ", spring-integration-redis " + version(RedisLockRegistry.class) + ", ShedLock "
				+ mavenVersion("net.javacrumbs.shedlock", "shedlock-provider-redis-spring") + ", Spring Boot "
				+ version(SpringApplication.class) + ", Lettuce " + version(RedisClient.class) + ", Bucket4j "
				+ mavenVersion("com.bucket4j", "bucket4j_jdk17-lettuce");
		return new BenchmarkEnvironment(machine, jvm, server, libraries);
	}

	private static String version(Class<?> type) {
		String version = type.getPackage().getImplementationVersion();
		return (version != null) ? version.replaceFirst("/.*", "") : "unknown";
	}

	/** The version in a jar's Maven metadata, for jars whose manifest names none. */
	private static String mavenVersion(String groupId, String artifactId) {
		String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
		try (InputStream in = BenchmarkEnvironment.class.getResourceAsStream(resource)) {
			if (in == null) {
				return "unknown";
			}
			Properties properties = new Properties();
			properties.load(in);
			return properties.getProperty("version", "unknown");
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	/** The commit of this checkout, since the module's classes carry no version of their own. */
	private static String lockstepVersion() {
		String commit = git("rev-parse", "--short", "HEAD");
		if (commit == null) {
			return "(this build)";
		}
		String changes = git("status", "--porcelain", "--untracked-files=no");
		return "at " + commit + ((changes != null && !changes.isEmpty()) ? " with uncommitted changes" : "");
	}

	private static @Nullable String git(String... arguments) {
		String[] command = new String[arguments.length + 1];
		command[0] = "git";
		System.arraycopy(arguments, 0, command, 1, arguments.length);
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			boolean finished = process.waitFor(10, TimeUnit.SECONDS);
			return (finished && process.exitValue() == 0) ? output.toLowerCase(Locale.ROOT) : null;
		}
		catch (IOException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

}
