package dev.lockstep.queue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.TypeFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

import dev.lockstep.SerialTask;

/**
 * A {@code @SerialQueueListener} method as a {@link TaskHandler}: reads the payload as the method's
 * payload parameter type and calls the method on its bean (the proxy, so the bean's other aspects,
 * a transaction for example, apply).
 */
final class ListenerMethod implements TaskHandler {

	private final Object bean;

	private final Method method;

	private final int payloadIndex;

	private final int taskIndex;

	private final JavaType payloadType;

	private final JsonMapper jsonMapper;

	private ListenerMethod(Object bean, Method method, int payloadIndex, int taskIndex, JsonMapper jsonMapper) {
		this.bean = bean;
		this.method = method;
		this.payloadIndex = payloadIndex;
		this.taskIndex = taskIndex;
		this.jsonMapper = jsonMapper;
		this.payloadType = payloadType(bean, method, payloadIndex, jsonMapper.getTypeFactory());
		ReflectionUtils.makeAccessible(method);
	}

	/** The method as a handler; fails naming the method unless it takes one payload and at most one {@link SerialTask}. */
	static ListenerMethod of(Object bean, Method method, JsonMapper jsonMapper) {
		Type[] types = method.getGenericParameterTypes();
		int payload = -1;
		int task = -1;
		for (int i = 0; i < types.length; i++) {
			if (types[i] == SerialTask.class) {
				if (task >= 0) {
					throw invalid(method, "takes two SerialTask parameters");
				}
				task = i;
			}
			else if (payload >= 0) {
				throw invalid(method, "takes more than one payload parameter (at most one other parameter, a SerialTask, is allowed)");
			}
			else {
				payload = i;
			}
		}
		if (payload < 0) {
			throw invalid(method, "takes no payload parameter; its type says how a task's payload is read");
		}
		return new ListenerMethod(bean, method, payload, task, jsonMapper);
	}

	/**
	 * The payload parameter's type as seen from the bean's class: a method declared on a generic
	 * superclass ({@code void run(T payload)}) reads the payload as the bean's type argument for
	 * {@code T}, not as {@code T}'s bound.
	 */
	private static JavaType payloadType(Object bean, Method method, int payloadIndex, TypeFactory types) {
		Type declared = method.getGenericParameterTypes()[payloadIndex];
		JavaType owner = types.constructType(AopUtils.getTargetClass(bean)).findSuperType(method.getDeclaringClass());
		return (owner != null) ? types.resolveMemberType(declared, owner.getBindings()) : types.constructType(declared);
	}

	private static IllegalStateException invalid(Method method, String problem) {
		return new IllegalStateException("@SerialQueueListener method " + describe(method) + " " + problem);
	}

	static String describe(Method method) {
		return method.getDeclaringClass().getName() + "." + method.getName();
	}

	@Override
	public void handle(SerialTask task, String payloadJson) throws Exception {
		Object[] args = new Object[this.method.getParameterCount()];
		try {
			args[this.payloadIndex] = this.jsonMapper.readValue(payloadJson, this.payloadType);
		}
		catch (JacksonException ex) {
			throw new UnreadablePayloadException("its payload cannot be read as " + this.payloadType.toCanonical()
					+ " (the parameter of " + describe(this.method) + "): " + ex.getOriginalMessage(), ex);
		}
		if (this.taskIndex >= 0) {
			args[this.taskIndex] = task;
		}
		try {
			this.method.invoke(this.bean, args);
		}
		catch (InvocationTargetException ex) {
			// the method's own exception or error, so that a dead task's error names it, not the reflective call
			if (ex.getCause() instanceof Exception cause) {
				throw cause;
			}
			if (ex.getCause() instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

	@Override
	public String toString() {
		return describe(this.method);
	}

}
