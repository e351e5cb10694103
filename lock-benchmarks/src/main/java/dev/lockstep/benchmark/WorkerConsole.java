package dev.lockstep.benchmark;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A worker JVM's side of {@link GroupWorkerProcess}: commands on standard input, one a line, and
 * answers on standard output, each line starting with {@value #REPLY} (anything else there is not
 * an answer). A command that fails is answered with {@code failed <reason>}; the worker exits when
 * its standard input ends, so it never outlives the benchmark.
 */
final class WorkerConsole {

	static final String REPLY = "@e ";

	/** Buffered: some answers are a few thousand lines. */
	private final PrintStream out = new PrintStream(
			new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false, StandardCharsets.UTF_8);

	/** A worker's commands. */
	@FunctionalInterface
	interface Commands {

		/** Carries out one command, answering through the console; a failure is answered for it. */
		void handle(String line) throws Exception;

	}

	/** Hands each line of standard input to {@code commands} until it ends, then exits the JVM. */
	void serve(Commands commands) throws IOException {
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			try {
				commands.handle(line.trim());
			}
			catch (Exception ex) {
				ex.printStackTrace();
				answer("failed " + String.valueOf(ex).replace('\n', ' '));
			}
		}
		// the benchmark has gone: leave no client thread behind
		System.exit(0);
	}

	/** A line of an answer that {@link #answer} ends, sent with it. */
	void line(String line) {
		this.out.print(REPLY + line + "\n");
	}

	/** An answer, sent now. */
	void answer(String answer) {
		line(answer);
		this.out.flush();
	}

}
