package dev.lockstep.counter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.springframework.data.redis.core.StringRedisTemplate;

import dev.lockstep.testing.JavaProcess;

/**
 * Three {@link CountingProcess} JVMs on one Redis (standalone or cluster), started once and given
 * one command after another, all three at once.
 */
final class CountingFleet implements AutoCloseable {

	static final int INSTANCES = 3;

	static final int THREADS = 16;

	private static final List<String> JVM = List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	private final List<JavaProcess> processes = new ArrayList<>();

	private final StringRedisTemplate redis;

	private final String prefix;

	/**
	 * @param mode {@code standalone} or {@code cluster}
	 * @param address {@code host:port}, or the cluster's node list
	 */
	CountingFleet(String mode, String address, StringRedisTemplate redis, String prefix) {
		this.redis = redis;
		this.prefix = prefix;
		for (int i = 0; i < INSTANCES; i++) {
			this.processes.add(JavaProcess.start("counting-" + i, CountingProcess.class, JVM, mode, address, prefix,
					"counting-" + i, Integer.toString(THREADS)));
		}
		this.processes.forEach((process) -> process.awaitLine("READY", Duration.ofSeconds(90)));
	}

	/**
	 * Sends {@code command} to every instance (or command {@code i} to instance {@code i}), to be
	 * started by all at one moment half a second later, and returns their reports.
	 */
	List<Report> run(String... commands) {
		List<Integer> seen = this.processes.stream().map((process) -> process.lines().size()).toList();
		long startAt = System.currentTimeMillis() + 500;
		for (int i = 0; i < INSTANCES; i++) {
			this.redis.opsForList()
				.rightPush(this.prefix + "control:counting-" + i, commands[(commands.length == 1) ? 0 : i] + " " + startAt);
		}
		List<Report> reports = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			JavaProcess process = this.processes.get(i);
			int from = seen.get(i);
			// awaitLine tests each line once, in order: the first DONE after the lines seen before the command
			int[] index = { 0 };
			String done = process.awaitLine((text) -> index[0]++ >= from && text.startsWith("DONE "), Duration.ofSeconds(60));
			List<String> problems = process.lines()
				.subList(from, process.lines().size())
				.stream()
				.filter((line) -> line.startsWith("FAILED") || line.startsWith("INCONSISTENT"))
				.toList();
			reports.add(Report.parse(done, problems));
		}
		return reports;
	}

	String outputs() {
		StringBuilder all = new StringBuilder();
		this.processes.forEach((process) -> all.append("--- ").append(process).append('\n').append(process.output()).append('\n'));
		return all.toString();
	}

	@Override
	public void close() {
		for (int i = 0; i < this.processes.size(); i++) {
			this.redis.opsForList().rightPush(this.prefix + "control:counting-" + i, "exit");
		}
		this.processes.forEach((process) -> process.stop(Duration.ofSeconds(10)));
	}

	/**
	 * What one instance reported for one command.
	 * @param added calls answered added
	 * @param refused calls answered refused
	 * @param failed calls that threw
	 * @param ids the ids (call numbers, or idempotency ids) answered added
	 * @param problems lines about failures and a retry answered otherwise than its first call
	 */
	record Report(int added, int refused, int failed, TreeSet<Integer> ids, List<String> problems) {

		static Report parse(String line, List<String> problems) {
			Map<String, String> values = new HashMap<>();
			for (String pair : line.substring(line.indexOf(' ', "DONE ".length()) + 1).split(" ")) {
				int equals = pair.indexOf('=');
				values.put(pair.substring(0, equals), pair.substring(equals + 1));
			}
			TreeSet<Integer> ids = new TreeSet<>();
			if (!values.get("ids").isEmpty()) {
				Arrays.stream(values.get("ids").split(",")).map(Integer::valueOf).forEach(ids::add);
			}
			return new Report(Integer.parseInt(values.get("added")), Integer.parseInt(values.get("refused")),
					Integer.parseInt(values.get("failed")), ids, problems);
		}

	}

}
