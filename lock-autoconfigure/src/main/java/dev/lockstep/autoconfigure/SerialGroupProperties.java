package dev.lockstep.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.DefaultValue;

import dev.lockstep.internal.DurationRules;

/**
 * Settings of {@code @SerialGroup} and {@code SerialGroups}.
 *
 * @param waitTime How long @SerialGroup calls that set no waitTime wait for their turn.
 */
public record SerialGroupProperties(@DefaultValue("60s") Duration waitTime) {

	/** Checks the wait, naming its property when it is negative. */
	public SerialGroupProperties {
		DurationRules.notNegative("lockstep.serial-group.wait-time", waitTime);
	}

}
