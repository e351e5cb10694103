package dev.lockstep.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.PackageMatchers;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * What a package may import of Lockstep, as an ArchUnit rule over compiled classes (the "May
 * import" of ARCHITECTURE.md). Package patterns are ArchUnit's: {@code dev.lockstep.lock..} is the
 * package and those under it, {@code dev.lockstep} that package alone.
 */
public final class ImportRules {

	private ImportRules() {
	}

	/** The main (not test) classes under {@code dev.lockstep} on the class path. */
	public static JavaClasses mainClasses() {
		return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("dev.lockstep");
	}

	/**
	 * Classes of {@code pkg} depend on no class of Lockstep outside {@code pkg}, the packages
	 * {@code allowed} and the classes {@code allowedClasses} (fully qualified names).
	 */
	public static ArchRule onlyImports(String pkg, List<String> allowed, Set<String> allowedClasses) {
		List<String> own = new ArrayList<>();
		own.add(pkg);
		own.addAll(allowed);
		PackageMatchers packages = PackageMatchers.of(own);
		DescribedPredicate<JavaClass> forbidden = DescribedPredicate.describe(
				"of Lockstep outside " + String.join(", ", own) + (allowedClasses.isEmpty() ? "" : " and " + allowedClasses),
				(JavaClass target) -> target.getPackageName().startsWith("dev.lockstep")
						&& !packages.test(target.getPackageName()) && !allowedClasses.contains(target.getName()));
		String description = allowed.isEmpty() && allowedClasses.isEmpty() ? "nothing of Lockstep"
				: String.join(", ", allowed) + (allowedClasses.isEmpty() ? "" : " and " + allowedClasses);
		return noClasses().that()
			.resideInAPackage(pkg)
			.should()
			.dependOnClassesThat(forbidden)
			.as(pkg + " imports " + description)
			.because("ARCHITECTURE.md says what each package may import");
	}

	/** {@link #onlyImports(String, List, Set)} with packages only. */
	public static ArchRule onlyImports(String pkg, String... allowed) {
		return onlyImports(pkg, List.of(allowed), Set.of());
	}

	/**
	 * An adapter's package stands on the {@code LockService} API: the API package, the
	 * auto-configuration it follows, and of lock-core's internals only {@code PrefixedLocks} and
	 * {@code ThreadHolds}; never the lock engine or its scripts.
	 */
	public static ArchRule adapterImports(String adapterPackage) {
		return onlyImports(adapterPackage, List.of("dev.lockstep", "dev.lockstep.autoconfigure.."),
				Set.of("dev.lockstep.internal.PrefixedLocks", "dev.lockstep.internal.ThreadHolds"));
	}

	/** Whether {@code rule} sees a violation in {@code classes}: a control that the rule can fail. */
	public static boolean seesViolationIn(ArchRule rule, Class<?>... classes) {
		return rule.evaluate(new ClassFileImporter().importClasses(classes)).hasViolation();
	}

}
