package dev.lockstep.testing;

/** The check of a seeded random test that a seed replays its run. */
public final class Replays {

	private Replays() {
	}

	/**
	 * Passes when {@code again}, a run's course told as text, is {@code first}'s.
	 * @throws AssertionError naming the seed and showing both courses where they first part
	 */
	public static void assertSameRun(long seed, String first, String again) {
		if (first.equals(again)) {
			return;
		}
		int parted = 0;
		while (parted < Math.min(first.length(), again.length()) && first.charAt(parted) == again.charAt(parted)) {
			parted++;
		}
		throw new AssertionError("The run of seed " + seed + " replayed went otherwise: '" + around(first, parted)
				+ "' the first time, '" + around(again, parted) + "' the second");
	}

	private static String around(String text, int at) {
		return text.substring(Math.max(0, at - 60), Math.min(text.length(), at + 60));
	}

}
