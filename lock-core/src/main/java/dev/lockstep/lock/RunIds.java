package dev.lockstep.lock;

import java.security.SecureRandom;

/** Short random parts of owner ids, drawn so that separate runs and starts never share one. */
final class RunIds {

	private static final SecureRandom random = new SecureRandom();

	private RunIds() {
	}

	/** Four random base-36 characters. */
	static String draw() {
		StringBuilder run = new StringBuilder(4);
		for (int i = 0; i < 4; i++) {
			run.append(Character.forDigit(random.nextInt(36), 36));
		}
		return run.toString();
	}

}
