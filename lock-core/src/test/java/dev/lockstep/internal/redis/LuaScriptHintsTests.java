package dev.lockstep.internal.redis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import dev.lockstep.AotFactories;

import static org.assertj.core.api.Assertions.assertThat;

/** Every Lua script on the class path is in a native image: a script no hint names would be missing there. */
class LuaScriptHintsTests {

	@Test
	void everyScriptOnTheClassPathHasAResourceHint() throws IOException {
		RuntimeHints hints = AotFactories.hints();
		List<String> scripts = scripts();
		// the class path holds lock-core's scripts and lock-testing's: an empty search would prove nothing
		assertThat(scripts).contains("dev/lockstep/lock/acquire.lua", "dev/lockstep/queue/queue-take.lua",
				"dev/lockstep/internal/redis/probe.lua", "dev/lockstep/testing/event-append.lua");
		assertThat(scripts).allSatisfy((script) -> assertThat(RuntimeHintsPredicates.resource().forResource(script))
			.as("resource hint for %s", script)
			.accepts(hints));
	}

	@Test
	void otherResourcesAreNotIncluded() {
		RuntimeHints hints = AotFactories.hints();
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/lockstep/lock/acquire.txt")).rejects(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("application.yml")).rejects(hints);
	}

	private static List<String> scripts() throws IOException {
		List<String> scripts = new ArrayList<>();
		for (Resource resource : new PathMatchingResourcePatternResolver().getResources("classpath*:dev/lockstep/**/*.lua")) {
			String url = resource.getURL().toString();
			scripts.add(url.substring(url.lastIndexOf("dev/lockstep/")));
		}
		return scripts;
	}

}
