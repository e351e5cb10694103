package dev.lockstep.autoconfigure.job;

import java.time.Duration;

/**
 * An application instance in a JVM of its own on a Redis Cluster, with the job of
 * {@link EverySecondJobProcess} (a 200 ms run every second, printing {@code START} and
 * {@code END} lines). Arguments: the cluster's nodes (host:port,...), key prefix, instance id.
 */
final class ClusterJobProcess {

	private ClusterJobProcess() {
	}

	public static void main(String[] args) throws Exception {
		String firstNode = args[0].split(",")[0];
		new JobApps.Process(firstNode.substring(0, firstNode.lastIndexOf(':')),
				Integer.parseInt(firstNode.substring(firstNode.lastIndexOf(':') + 1)), args[1])
			.start(args[2], Duration.ZERO, EverySecondJobProcess.EverySecond.class,
					"spring.data.redis.cluster.nodes=" + args[0], "spring.data.redis.timeout=2s",
					"spring.data.redis.lettuce.cluster.refresh.adaptive=true",
					"spring.data.redis.lettuce.cluster.refresh.period=1s", "lockstep.command-timeout=2s");
		System.out.println("STARTED " + args[2]);
		Thread.currentThread().join();
	}

}
