package dev.lockstep.autoconfigure;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;

import dev.lockstep.LockListener;
import dev.lockstep.LockLostEvent;

/** Publishes each {@link LockLostEvent} to the application context, for {@code @EventListener} methods. */
public class LockLostEventPublisher implements LockListener, ApplicationEventPublisherAware {

	private ApplicationEventPublisher publisher = (event) -> {
	};

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	@Override
	public void lost(LockLostEvent event) {
		this.publisher.publishEvent(event);
	}

}
