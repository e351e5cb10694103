package dev.lockstep.internal.spel;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.util.StringUtils;

import dev.lockstep.LockKeyException;

/**
 * A key expression parsed and checked once per method: it may read the method's arguments (by
 * name, or as {@code #p0}/{@code #a0}), their properties and instance methods, and nothing else.
 */
public final class KeyExpression {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private final String text;

	private final String source;

	private final SpelExpression expression;

	private final String @Nullable [] parameterNames;

	private KeyExpression(String text, String source, SpelExpression expression, String @Nullable [] parameterNames) {
		this.text = text;
		this.source = source;
		this.expression = expression;
		this.parameterNames = parameterNames;
	}

	/**
	 * Parses and checks {@code text}, the key of {@code source} (for example
	 * "@DistributedLock on OrderService.place(String)"), for {@code method}.
	 * @throws IllegalStateException naming the source and the expression if it is not allowed
	 */
	public static KeyExpression parse(String text, Method method, String source) {
		if (!StringUtils.hasText(text)) {
			throw new IllegalStateException(source + " has a blank key expression");
		}
		SpelExpression expression;
		try {
			expression = (SpelExpression) PARSER.parseExpression(text);
		}
		catch (ParseException ex) {
			throw new IllegalStateException(source + " has a key expression that does not parse: '" + text + "': "
					+ ex.getMessage(), ex);
		}
		String[] names = PARAMETER_NAMES.getParameterNames(method);
		Set<String> variables = new LinkedHashSet<>();
		for (int i = 0; i < method.getParameterCount(); i++) {
			variables.add("p" + i);
			variables.add("a" + i);
			// a Kotlin suspend function's names leave out its trailing continuation
			if (names != null && i < names.length) {
				variables.add(names[i]);
			}
		}
		check(expression.getAST(), text, source, variables, names != null);
		return new KeyExpression(text, source, expression, names);
	}

	private static void check(SpelNode node, String text, String source, Set<String> variables, boolean named) {
		String forbidden = null;
		if (node instanceof TypeReference) {
			forbidden = "a type reference (T(...))";
		}
		else if (node instanceof ConstructorReference) {
			forbidden = "a constructor call (new ...)";
		}
		else if (node instanceof BeanReference) {
			forbidden = "a bean reference (@...)";
		}
		else if (node instanceof Assign) {
			forbidden = "an assignment";
		}
		else if (node instanceof FunctionReference) {
			forbidden = "a function call (#name(...))";
		}
		if (forbidden != null) {
			throw new IllegalStateException(source + ": key expression '" + text + "' uses " + forbidden
					+ "; key expressions may only read the method's arguments, their properties and instance methods");
		}
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!name.equals("this") && !name.equals("root") && !variables.contains(name)) {
				throw new IllegalStateException(source + ": key expression '" + text + "' refers to #" + name
						+ ", which is not a parameter; parameters are " + variables
						// the hint only where it helps: with the names compiled in, the name is simply wrong
						+ (named ? "" : " (its class was compiled without -parameters: compile with it to refer to "
								+ "them by name)"));
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			check(node.getChild(i), text, source, variables, named);
		}
	}

	/**
	 * The key for one call.
	 * @throws LockKeyException naming the source and expression if it fails or gives null or blank
	 */
	public String evaluate(@Nullable Object[] arguments) {
		SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();
		for (int i = 0; i < arguments.length; i++) {
			context.setVariable("p" + i, arguments[i]);
			context.setVariable("a" + i, arguments[i]);
			if (this.parameterNames != null && i < this.parameterNames.length) {
				context.setVariable(this.parameterNames[i], arguments[i]);
			}
		}
		String key;
		try {
			Object value = this.expression.getValue(context);
			key = (value != null) ? value.toString() : null;
		}
		catch (EvaluationException ex) {
			throw new LockKeyException(this.source + ": key expression '" + this.text + "' failed: " + ex.getMessage(), ex);
		}
		catch (RuntimeException ex) {
			// SpEL passes on as it is what a method of an argument throws, and toString() is the argument's own
			throw new LockKeyException(this.source + ": key expression '" + this.text + "' failed: " + ex, ex);
		}
		if (!StringUtils.hasText(key)) {
			throw new LockKeyException(this.source + ": key expression '" + this.text + "' gave "
					+ ((key == null) ? "null" : "a blank key") + "; the method was not run", null);
		}
		return key;
	}

	@Override
	public String toString() {
		return this.text;
	}

}
