package dev.lockstep.autoconfigure.job;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Keeps a copy of everything written to {@code System.out} from {@link #install()} to
 * {@link #close()}, still passing it on. Unlike Spring Boot's {@code OutputCaptureExtension},
 * which pushes and pops a capture around each test on one stack per class, it may be read by
 * tests that run concurrently: it is installed once for the whole class.
 */
final class ConsoleCapture implements AutoCloseable {

	private final PrintStream original;

	private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

	private ConsoleCapture(PrintStream original) {
		this.original = original;
	}

	static ConsoleCapture install() {
		ConsoleCapture capture = new ConsoleCapture(System.out);
		System.setOut(new PrintStream(new OutputStream() {

			@Override
			public void write(int b) {
				capture.original.write(b);
				capture.copy.write(b);
			}

			@Override
			public void write(byte[] bytes, int offset, int length) {
				capture.original.write(bytes, offset, length);
				capture.copy.write(bytes, offset, length);
			}

			@Override
			public void flush() {
				capture.original.flush();
			}

		}, true, StandardCharsets.UTF_8));
		return capture;
	}

	/** What was written so far (each write whole: the copy's writes and reads are synchronized). */
	String text() {
		return this.copy.toString(StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		System.out.flush();
		System.setOut(this.original);
	}

}
