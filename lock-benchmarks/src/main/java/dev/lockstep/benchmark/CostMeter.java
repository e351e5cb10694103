package dev.lockstep.benchmark;

import java.lang.management.ManagementFactory;

import com.sun.management.OperatingSystemMXBean;

/**
 * Counts what a measured window costs: the commands the Redis server executed in it (Lua-internal
 * ones included, the benchmark's own INFO left out), the server's CPU time and this JVM's. Started
 * before the window, {@link #stop() stopped} after it.
 */
final class CostMeter {

	private static final OperatingSystemMXBean CPU = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

	private final BenchmarkRedis redis;

	private final CommandCounts commandsBefore;

	private final long redisCpuBefore;

	private final long jvmCpuBefore;

	private CostMeter(BenchmarkRedis redis) {
		this.redis = redis;
		this.commandsBefore = redis.commandsExecuted();
		this.redisCpuBefore = redis.cpuMicros();
		this.jvmCpuBefore = CPU.getProcessCpuTime();
	}

	/** Starts counting now. */
	static CostMeter start(BenchmarkRedis redis) {
		return new CostMeter(redis);
	}

	/** What was spent since {@link #start}. */
	Cost stop() {
		// the reverse of the start's order: the windows nest, and the server's CPU window holds no INFO commandstats
		long jvmCpuMicros = (CPU.getProcessCpuTime() - this.jvmCpuBefore) / 1000;
		long redisCpuMicros = this.redis.cpuMicros() - this.redisCpuBefore;
		CommandCounts commands = this.redis.commandsExecuted().since(this.commandsBefore);
		return new Cost(commands, redisCpuMicros, jvmCpuMicros);
	}

	/**
	 * What one window cost.
	 * @param commands the Redis commands executed in the window, Lua-internal ones included
	 * @param redisCpuMicros the CPU time the Redis server used in the window
	 * @param jvmCpuMicros the CPU time this JVM used in the window
	 */
	record Cost(CommandCounts commands, long redisCpuMicros, long jvmCpuMicros) {

		double commandsPer(long operations) {
			return (double) this.commands.total() / operations;
		}

		double redisCpuPer(long operations) {
			return (double) this.redisCpuMicros / operations;
		}

		double jvmCpuPer(long operations) {
			return (double) this.jvmCpuMicros / operations;
		}

	}

}
