package dev.lockstep.sample;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A headless Chromium that loads a page, lets its scripts run for a while and returns the DOM
 * they left ({@code --dump-dom}). Found as {@code CHROMIUM}, else {@code chromium} or
 * {@code chromium-browser} on the PATH (Debian's {@code chromium} package).
 */
final class HeadlessBrowser {

	private final Path binary;

	private HeadlessBrowser(Path binary) {
		this.binary = binary;
	}

	static Optional<HeadlessBrowser> find() {
		String configured = System.getenv("CHROMIUM");
		if (configured != null && !configured.isBlank()) {
			return Optional.of(new HeadlessBrowser(Path.of(configured)));
		}
		return Stream.of(System.getenv("PATH").split(java.io.File.pathSeparator))
			.flatMap((dir) -> Stream.of(Path.of(dir, "chromium"), Path.of(dir, "chromium-browser")))
			.filter(Files::isExecutable)
			.findFirst()
			.map(HeadlessBrowser::new);
	}

	/**
	 * The page's DOM after its scripts ran for {@code scriptTime} of the browser's virtual time
	 * (which waits for the page's requests to be answered).
	 */
	String render(URI page, Duration scriptTime) throws IOException, InterruptedException {
		Path profile = Files.createTempDirectory("lockstep-chromium-");
		Path out = Files.createTempFile("lockstep-dom-", ".html");
		try {
			Process process = new ProcessBuilder(List.of(this.binary.toString(), "--headless", "--no-sandbox",
					"--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile,
					"--virtual-time-budget=" + scriptTime.toMillis(), "--dump-dom", page.toString()))
				.redirectOutput(out.toFile())
				.redirectError(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!process.waitFor(90, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("Chromium did not render " + page + " within 90 s");
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException("Chromium exited with " + process.exitValue() + " rendering " + page);
			}
			return Files.readString(out, StandardCharsets.UTF_8);
		}
		finally {
			Files.deleteIfExists(out);
			try (Stream<Path> files = Files.walk(profile)) {
				files.sorted(java.util.Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
		}
	}

}
