package dev.lockstep.console;

import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.BeanUtils;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import dev.lockstep.JobRun;
import dev.lockstep.QueueStats;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in a native image: its page's files, its heartbeat script and the records its API
 * writes have hints, from {@code @ImportRuntimeHints} on the auto-configuration and lock-core's
 * {@code aot.factories}, as Spring's AOT engine finds them.
 */
class ConsoleHintsTests {

	@Test
	void everyFileOfThePageHasAResourceHint() throws IOException {
		RuntimeHints hints = imported();
		List<String> assets = resources("classpath*:dev/lockstep/console/static/*");
		assertThat(assets).contains("dev/lockstep/console/static/index.html", "dev/lockstep/console/static/console.js");
		assertThat(assets).allSatisfy((asset) -> assertThat(RuntimeHintsPredicates.resource().forResource(asset))
			.as("resource hint for %s", asset)
			.accepts(hints));
	}

	@Test
	void theHeartbeatScriptHasAResourceHint() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.stream()
			.filter((registrar) -> registrar.getClass().getName().startsWith("dev.lockstep."))
			.forEach((registrar) -> registrar.registerHints(hints, ConsoleHintsTests.class.getClassLoader()));
		List<String> scripts = resources("classpath*:dev/lockstep/console/*.lua");
		assertThat(scripts).contains("dev/lockstep/console/instance-record.lua");
		assertThat(scripts).allSatisfy((script) -> assertThat(RuntimeHintsPredicates.resource().forResource(script))
			.as("resource hint for %s", script)
			.accepts(hints));
	}

	@Test
	void everyRecordTheApiWritesIsHintedForJackson() {
		RuntimeHints hints = imported();
		Set<Class<?>> records = new LinkedHashSet<>();
		for (Class<?> answer : List.of(ClusterView.Cluster.class, ConsoleActions.Result.class, ConsoleController.Unreachable.class)) {
			walk(answer, records);
		}
		assertThat(records).contains(ClusterView.Queue.class, ClusterView.Job.class, ClusterView.DeadTask.class,
				ActivityHistory.LockWaits.class, JobRun.class, QueueStats.class);
		for (Class<?> record : records) {
			assertThat(RuntimeHintsPredicates.reflection().onType(record)).as("%s", record).accepts(hints);
			for (RecordComponent component : record.getRecordComponents()) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
					.as("%s.%s()", record.getName(), component.getName())
					.accepts(hints);
			}
		}
	}

	private static RuntimeHints imported() {
		ImportRuntimeHints imports = ConsoleAutoConfiguration.class.getAnnotation(ImportRuntimeHints.class);
		assertThat(imports).as("@ImportRuntimeHints on the console's auto-configuration").isNotNull();
		RuntimeHints hints = new RuntimeHints();
		for (Class<? extends RuntimeHintsRegistrar> registrar : imports.value()) {
			BeanUtils.instantiateClass(registrar).registerHints(hints, ConsoleHintsTests.class.getClassLoader());
		}
		return hints;
	}

	/** The record and, through its components (and the type arguments of lists), every Lockstep record it holds. */
	private static void walk(Type type, Set<Class<?>> seen) {
		if (type instanceof ParameterizedType parameterized) {
			for (Type argument : parameterized.getActualTypeArguments()) {
				walk(argument, seen);
			}
		}
		else if (type instanceof Class<?> raw && raw.isRecord() && raw.getName().startsWith("dev.lockstep.") && seen.add(raw)) {
			for (RecordComponent component : raw.getRecordComponents()) {
				walk(component.getGenericType(), seen);
			}
		}
	}

	private static List<String> resources(String pattern) throws IOException {
		List<String> found = new ArrayList<>();
		for (Resource resource : new PathMatchingResourcePatternResolver().getResources(pattern)) {
			String url = resource.getURL().toString();
			found.add(url.substring(url.lastIndexOf("dev/lockstep/")));
		}
		return found;
	}

}
