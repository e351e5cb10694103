package dev.lockstep.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Finds a {@code redis-server} executable: the {@code REDIS_SERVER} environment variable if set,
 * else the binary shipped inside the {@code com.github.codemonstur:embedded-redis} jar for this
 * platform (Linux and macOS, x86-64 and ARM), else {@code redis-server} on the PATH.
 */
public final class RedisBinary {

	private static @Nullable Path found;

	private RedisBinary() {
	}

	/** The executable, extracted once per JVM into the temporary directory if it comes from the jar. */
	public static synchronized Path find() {
		if (found == null) {
			found = locate();
		}
		return found;
	}

	private static Path locate() {
		String configured = System.getenv("REDIS_SERVER");
		if (configured != null && !configured.isBlank()) {
			Path path = Path.of(configured);
			if (!Files.isExecutable(path)) {
				throw new IllegalStateException("REDIS_SERVER=" + configured + " is not an executable file");
			}
			return path;
		}
		String resource = shippedResource();
		if (resource != null && RedisBinary.class.getClassLoader().getResource(resource) != null) {
			return extract(resource);
		}
		for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
			Path candidate = Path.of(dir, "redis-server");
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		throw new IllegalStateException("No redis-server found for " + System.getProperty("os.name") + "/"
				+ System.getProperty("os.arch") + ". Provide one of: REDIS_URL=redis://host:port (a running server), "
				+ "a Docker engine (Testcontainers), REDIS_SERVER=/path/to/redis-server, or redis-server on the PATH "
				+ "(Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis).");
	}

	private static @Nullable String shippedResource() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		boolean arm = arch.contains("aarch64") || arch.contains("arm64");
		boolean x64 = arch.contains("amd64") || arch.contains("x86_64");
		if (os.contains("linux") && x64) {
			return "redis-server-6.2.6-v5-linux-amd64";
		}
		if (os.contains("linux") && arm) {
			return "redis-server-6.2.7-linux-arm64";
		}
		if (os.contains("mac") && x64) {
			return "redis-server-6.2.6-v5-darwin-amd64";
		}
		if (os.contains("mac") && arm) {
			return "redis-server-6.2.6-v5-darwin-arm64";
		}
		return null;
	}

	private static Path extract(String resource) {
		try {
			Path dir = Path.of(System.getProperty("java.io.tmpdir"), "lockstep-redis");
			Files.createDirectories(dir);
			Path target = dir.resolve(resource);
			try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
				byte[] bytes = in.readAllBytes();
				if (Files.isExecutable(target) && Files.size(target) == bytes.length) {
					return target;
				}
				// Several JVMs may extract at once: write aside, then move into place atomically.
				Path partial = Files.createTempFile(dir, resource, ".partial");
				Files.write(partial, bytes);
				partial.toFile().setExecutable(true);
				Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
				return target;
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot extract " + resource + " from the embedded-redis jar", ex);
		}
	}

}
