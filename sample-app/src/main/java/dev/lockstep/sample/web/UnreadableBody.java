package dev.lockstep.sample.web;

import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.exc.MismatchedInputException;

import org.springframework.http.converter.HttpMessageNotReadableException;

/**
 * Says what was wrong with a request body Jackson could not read, naming the field: "workMillis:
 * required", "workMillis: must be a number", or, when no field is at fault, that the body is not
 * JSON. Spring MVC's own answer ("Failed to read request") names nothing.
 */
final class UnreadableBody {

	private UnreadableBody() {
	}

	static String describe(HttpMessageNotReadableException ex) {
		JacksonException cause = jacksonCause(ex);
		String field = (cause != null) ? field(cause.getPath()) : "";
		if (field.isEmpty()) {
			return "the body is not a JSON object of the expected shape";
		}
		if (cause instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
			JsonToken token = mismatch.getCurrentToken();
			if (token == null || token == JsonToken.VALUE_NULL || token == JsonToken.END_OBJECT) {
				return field + ": required";
			}
			return field + ": must be " + expected(mismatch.getTargetType());
		}
		return field + ": cannot be read";
	}

	private static @Nullable JacksonException jacksonCause(Throwable ex) {
		for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
			if (cause instanceof JacksonException jackson) {
				return jackson;
			}
		}
		return null;
	}

	private static String field(List<JacksonException.Reference> path) {
		return path.stream()
			.map((reference) -> (reference.getPropertyName() != null) ? reference.getPropertyName()
					: "[" + reference.getIndex() + "]")
			.collect(Collectors.joining("."));
	}

	private static String expected(Class<?> type) {
		if (type == long.class || type == int.class || type == Long.class || type == Integer.class) {
			return "a whole number";
		}
		if (type == String.class) {
			return "a string";
		}
		if (type == boolean.class || type == Boolean.class) {
			return "true or false";
		}
		return "a " + type.getSimpleName();
	}

}
