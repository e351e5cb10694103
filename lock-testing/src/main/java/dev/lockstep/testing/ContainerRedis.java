package dev.lockstep.testing;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A Redis container through Testcontainers, if Testcontainers is on the class path and Docker answers. */
final class ContainerRedis {

	private static final Logger logger = LoggerFactory.getLogger(ContainerRedis.class);

	private ContainerRedis() {
	}

	static TestRedis.@Nullable Endpoint startIfDockerAnswers() {
		try {
			Class.forName("org.testcontainers.DockerClientFactory", false, ContainerRedis.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			return null;
		}
		try {
			return Containers.start();
		}
		catch (RuntimeException | LinkageError ex) {
			logger.info("No Docker engine for Testcontainers ({}); starting a redis-server process instead", ex.toString());
			return null;
		}
	}

	/** Only loaded once Testcontainers is known to be present. */
	private static final class Containers {

		@SuppressWarnings("resource")
		static TestRedis.@Nullable Endpoint start() {
			if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
				return null;
			}
			var container = new org.testcontainers.containers.GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
			container.start();
			return new TestRedis.Endpoint(container.getHost(), container.getMappedPort(6379), "Testcontainers redis:7-alpine");
		}

	}

}
