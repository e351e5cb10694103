package dev.lockstep.autoconfigure;

/**
 * Thrown at startup when the application's Redis connection is not a Lettuce one (Lettuce missing
 * from the class path, or a Jedis connection factory); {@link LettuceRequiredFailureAnalyzer}
 * explains it.
 */
final class LettuceRequiredException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String finding;

	/** {@code finding} says what the application has instead, as a sentence without its full stop. */
	LettuceRequiredException(String finding) {
		super("Lockstep runs on Lettuce, the default client of spring-boot-starter-data-redis, but " + finding
				+ ". Use Lettuce, or set lockstep.enabled=false to run without Lockstep.");
		this.finding = finding;
	}

	static LettuceRequiredException lettuceMissing(boolean jedisPresent) {
		return new LettuceRequiredException("io.lettuce:lettuce-core is not on the class path (the application's Redis "
				+ "connection uses " + (jedisPresent ? "Jedis" : "a client other than Lettuce") + ")");
	}

	static LettuceRequiredException otherConnectionFactory(Object connectionFactory) {
		return new LettuceRequiredException("the application's RedisConnectionFactory is a "
				+ connectionFactory.getClass().getName() + " (spring.data.redis.client-type=jedis, or a factory of its own)");
	}

	String finding() {
		return this.finding;
	}

}
