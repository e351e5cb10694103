package dev.lockstep.queue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.lockstep.annotation.SerialQueueListener;

/**
 * Finds {@link SerialQueueListener} methods on beans and registers them with the
 * {@link RedisSerialQueue} once every singleton is created (so the queue's workers start with the
 * context's lifecycle); a bad method or attribute stops startup, naming the method.
 */
public final class SerialQueueListeners implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware {

	private final ObjectProvider<RedisSerialQueue> queue;

	private @Nullable ConfigurableBeanFactory beanFactory;

	private final List<Found> found = new ArrayList<>();

	private boolean singletonsCreated;

	public SerialQueueListeners(ObjectProvider<RedisSerialQueue> queue) {
		this.queue = queue;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableBeanFactory configurable) {
			this.beanFactory = configurable;
		}
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> type = AopUtils.getTargetClass(bean);
		Map<Method, SerialQueueListener> methods = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<SerialQueueListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, SerialQueueListener.class));
		methods.forEach((method, annotation) -> {
			Found listener = new Found(bean, AopUtils.selectInvocableMethod(method, bean.getClass()), method, annotation);
			synchronized (this) {
				if (this.singletonsCreated) {
					register(listener);
				}
				else {
					this.found.add(listener);
				}
			}
		});
		return bean;
	}

	@Override
	public synchronized void afterSingletonsInstantiated() {
		this.singletonsCreated = true;
		this.found.forEach(this::register);
		this.found.clear();
	}

	private void register(Found listener) {
		RedisSerialQueue serialQueue = this.queue.getObject();
		String name = ListenerMethod.describe(listener.declared());
		String queueName = resolve(name, "queue", listener.annotation().queue());
		if (queueName.isBlank()) {
			throw new IllegalStateException("@SerialQueueListener method " + name + " names no queue");
		}
		String concurrencyText = resolve(name, "concurrency", listener.annotation().concurrency());
		int concurrency;
		try {
			concurrency = Integer.parseInt(concurrencyText.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException("@SerialQueueListener method " + name + " has concurrency '"
					+ listener.annotation().concurrency() + "'" + (concurrencyText.equals(listener.annotation().concurrency())
							? "" : " (resolved to '" + concurrencyText + "')")
					+ ", which is not a whole number", ex);
		}
		if (concurrency < 1) {
			throw new IllegalStateException("@SerialQueueListener method " + name + " has concurrency " + concurrency
					+ "; it must be at least 1");
		}
		ListenerMethod handler = ListenerMethod.of(listener.bean(), listener.invocable(), serialQueue.jsonMapper());
		try {
			serialQueue.listen(queueName, concurrency, handler, name);
		}
		catch (IllegalArgumentException ex) {
			// the queue's own rules (a name free of braces) name the queue, not the method that named it
			throw new IllegalStateException("@SerialQueueListener method " + name + ": " + ex.getMessage(), ex);
		}
	}

	/** The attribute with its placeholders resolved; an unresolvable one stops startup naming the method. */
	private String resolve(String method, String attribute, String value) {
		if (this.beanFactory == null) {
			return value;
		}
		String resolved;
		try {
			resolved = this.beanFactory.resolveEmbeddedValue(value);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("@SerialQueueListener method " + method + " has " + attribute + " '" + value
					+ "', which cannot be resolved: " + ex.getMessage(), ex);
		}
		return (resolved != null) ? resolved : value;
	}

	private record Found(Object bean, Method invocable, Method declared, SerialQueueListener annotation) {
	}

}
