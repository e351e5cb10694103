package dev.lockstep.autoconfigure;

/**
 * Thrown at startup when a setting is well formed but the application's Redis cannot honour it
 * (a check the properties cannot make, as it needs the connection);
 * {@link UnsupportedSettingFailureAnalyzer} turns it into Boot's failure report.
 */
final class UnsupportedSettingException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String problem;

	private final String fix;

	/** {@code problem} names the property and its value; {@code fix} says what to set instead; both sentences. */
	UnsupportedSettingException(String problem, String fix) {
		super(problem + " " + fix);
		this.problem = problem;
		this.fix = fix;
	}

	static UnsupportedSettingException replicaAcknowledgementsOnACluster(int replicaAcknowledgements) {
		return new UnsupportedSettingException("lockstep.lock.replica-acknowledgements (" + replicaAcknowledgements
				+ ") is not supported on a Redis Cluster: WAIT cannot be sent to the master of each key.",
				"Set lockstep.lock.replica-acknowledgements to 0 (the default), or connect to a standalone or "
						+ "Sentinel Redis.");
	}

	String problem() {
		return this.problem;
	}

	String fix() {
		return this.fix;
	}

}
