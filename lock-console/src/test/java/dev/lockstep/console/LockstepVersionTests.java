package dev.lockstep.console;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.lockstep.LockStateRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The console shows the version of the Lockstep an application runs, from lock-core's manifest. */
class LockstepVersionTests {

	@Test
	void theConsoleShowsTheVersionOfTheLockCoreJar() throws Exception {
		Path core = Path.of(LockStateRegistry.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		// lock-core as a jar (./mvnw verify, an application); a build that stops at the test phase sees its class folder
		assumeTrue(Files.isRegularFile(core), "lock-core is a class folder here, not a jar: " + core);
		assertThat(InstanceHeartbeat.lockstepVersion()).isEqualTo(System.getProperty("lockstep.project.version"))
			.isNotEqualTo("development");
	}

}
