package dev.lockstep.autoconfigure;

import java.time.Duration;

import dev.lockstep.internal.DurationRules;

/**
 * Settings of {@code @SerialGroup} and {@code SerialGroups}.
 */
public class SerialGroupProperties {

	/**
	 * How long @SerialGroup calls that set no waitTime wait for their turn.
	 */
	private Duration waitTime = Duration.ofSeconds(60);

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = DurationRules.notNegative("lockstep.serial-group.wait-time", waitTime);
	}

}
