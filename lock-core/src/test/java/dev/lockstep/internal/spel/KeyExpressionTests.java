package dev.lockstep.internal.spel;

import java.lang.reflect.Method;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.lockstep.LockKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Key expressions: what they may read, and how they fail. */
class KeyExpressionTests {

	record ImportRequest(String tenantId, String entityCode) {
	}

	static class Order {

		private final long id;

		Order(long id) {
			this.id = id;
		}

		public long getId() {
			return this.id;
		}

	}

	@SuppressWarnings("unused")
	void target(ImportRequest request, Order order, List<String> tags, String text) {
	}

	private static Method target() throws NoSuchMethodException {
		return KeyExpressionTests.class.getDeclaredMethod("target", ImportRequest.class, Order.class, List.class, String.class);
	}

	private static String evaluate(String expression, Object... arguments) throws Exception {
		return KeyExpression.parse(expression, target(), "test").evaluate(arguments);
	}

	@Test
	void readsRecordComponentsBeanPropertiesInstanceMethodsAndPositions() throws Exception {
		Object[] args = { new ImportRequest("t1", "E7"), new Order(42), List.of("a", "b"), "Hello" };
		assertThat(evaluate("#request.tenantId + ':' + #request.entityCode", args)).isEqualTo("t1:E7");
		assertThat(evaluate("#request.tenantId() + ':' + #p0.entityCode", args)).isEqualTo("t1:E7");
		assertThat(evaluate("#order.id", args)).isEqualTo("42");
		assertThat(evaluate("#a2[1] + #tags.size()", args)).isEqualTo("b2");
		assertThat(evaluate("#text.toLowerCase()", args)).isEqualTo("hello");
	}

	@Test
	void rejectsWhatCouldReachBeyondTheArguments() {
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("T(java.lang.System).exit(1)", target(), "test"))
			.withMessageContaining("type reference");
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("#text instanceof T(String)", target(), "test"))
			.withMessageContaining("type reference");
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("new String('x')", target(), "test"))
			.withMessageContaining("constructor");
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("@someBean", target(), "test"))
			.withMessageContaining("bean reference");
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("#text = 'x'", target(), "test"))
			.withMessageContaining("assignment");
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("#tenant", target(), "test"))
			.withMessageContaining("#tenant").withMessageContaining("not a parameter");
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("#text +", target(), "test"))
			.withMessageContaining("does not parse");
	}

	/**
	 * The hint to compile with {@code -parameters} only when the names were missing: this class is
	 * compiled with them, the JDK's own classes without (their names are not in the class files).
	 */
	@Test
	void aMissingParameterHintsAtDashParametersOnlyWhenTheNamesWereNotCompiledIn() throws Exception {
		assertThat(target().getParameters()[0].isNamePresent()).as("this class compiled with -parameters").isTrue();
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("#tenant", target(), "test"))
			.withMessage("test: key expression '#tenant' refers to #tenant, which is not a parameter; parameters are "
					+ "[p0, a0, request, p1, a1, order, p2, a2, tags, p3, a3, text]");
		Method withoutNames = String.class.getMethod("substring", int.class, int.class);
		assertThat(withoutNames.getParameters()[0].isNamePresent()).as("the JDK compiled without -parameters").isFalse();
		assertThatIllegalStateException().isThrownBy(() -> KeyExpression.parse("#beginIndex", withoutNames, "test"))
			.withMessage("test: key expression '#beginIndex' refers to #beginIndex, which is not a parameter; parameters "
					+ "are [p0, a0, p1, a1] (its class was compiled without -parameters: compile with "
					+ "it to refer to them by name)");
	}

	@Test
	void staticMethodsAndClassObjectsAreOutOfReachAtRuntime() throws Exception {
		Object[] args = { new ImportRequest("t1", "E7"), new Order(42), List.of(), "Hello" };
		assertThatThrownBy(() -> evaluate("#text.getClass().forName('java.lang.Runtime')", args))
			.isInstanceOf(LockKeyException.class);
		assertThatThrownBy(() -> evaluate("#text.valueOf(42)", args)).isInstanceOf(LockKeyException.class);
	}

}
