package dev.lockstep.fencing;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.persistence.PrePersist;
import jakarta.persistence.PreUpdate;
import jakarta.persistence.Version;

import org.springframework.util.ReflectionUtils;

import dev.lockstep.LockHandle;
import dev.lockstep.StaleLockException;
import dev.lockstep.internal.ThreadHolds;

/**
 * Fencing for JPA entities: every insert and update of an entity with a {@link FencingToken}
 * field must be made under a lock the current thread holds ({@code @DistributedLock},
 * {@link dev.lockstep.LockService#callLocked}), whose token is stored in that field.
 *
 * <pre class="code">
 * &#64;Entity
 * &#64;EntityListeners(FencingTokenListener.class)
 * class Account {
 *     &#64;Id Long id;
 *     &#64;Version long version;
 *     &#64;FencingToken Long fencingToken;
 * }
 * </pre>
 *
 * Two checks together refuse a stale holder's write. Before the write, the token the entity was
 * loaded with must not be above the holder's, or {@link StaleLockException} is thrown (a later
 * holder wrote before this one read; an equal token is this acquisition's own earlier flush). At the write, the entity's {@code @Version} (required) makes the
 * {@code UPDATE} conditional on the row being unchanged since it was read: a later holder that
 * wrote in between makes it fail with the provider's optimistic locking exception. Either way
 * nothing is written, and the transaction rolls back. Needs the Jakarta Persistence API, which
 * is optional for Lockstep.
 */
public class FencingTokenListener {

	private static final Map<Class<?>, Field> TOKEN_FIELDS = new ConcurrentHashMap<>();

	/** Checks the entity's stored token against the holder's, and stamps the holder's. */
	@PrePersist
	@PreUpdate
	public void fence(Object entity) {
		Field field = TOKEN_FIELDS.computeIfAbsent(entity.getClass(), FencingTokenListener::tokenField);
		String entityName = entity.getClass().getSimpleName();
		LockHandle lock = ThreadHolds.innermost()
			.orElseThrow(() -> new IllegalStateException("Entity " + entityName + " is fenced (@FencingToken) and is "
					+ "written only under a lock held by the current thread (a @DistributedLock method or a "
					+ "LockService callback); none is held"));
		if (!lock.isHeld()) {
			// the innermost lock is lost: never the token of a lock taken around it
			throw StaleLockException.notHeld(lock.key(), lock.fencingToken(), "entity " + entityName);
		}
		Object stored = ReflectionUtils.getField(field, entity);
		if (stored instanceof Long token && token > lock.fencingToken()) {
			throw new StaleLockException(lock.key(), lock.fencingToken(), token, "entity " + entityName);
		}
		ReflectionUtils.setField(field, entity, lock.fencingToken());
	}

	private static Field tokenField(Class<?> entityClass) {
		Field token = null;
		boolean versioned = false;
		for (Class<?> type = entityClass; type != null && type != Object.class; type = type.getSuperclass()) {
			for (Field field : type.getDeclaredFields()) {
				if (field.isAnnotationPresent(FencingToken.class)) {
					if (field.getType() != Long.class && field.getType() != long.class) {
						throw new IllegalStateException("@FencingToken field " + entityClass.getSimpleName() + "."
								+ field.getName() + " must be a Long or long, was " + field.getType().getName());
					}
					token = field;
				}
				versioned |= field.isAnnotationPresent(Version.class);
			}
			for (java.lang.reflect.Method method : type.getDeclaredMethods()) {
				versioned |= method.isAnnotationPresent(Version.class);
			}
		}
		if (token == null) {
			throw new IllegalStateException("Entity " + entityClass.getSimpleName() + " names FencingTokenListener but has "
					+ "no @FencingToken field");
		}
		if (!versioned) {
			throw new IllegalStateException("Entity " + entityClass.getSimpleName() + " is fenced (@FencingToken) but has "
					+ "no @Version attribute: without it a holder that read the row before a later holder wrote "
					+ "would overwrite that write");
		}
		ReflectionUtils.makeAccessible(token);
		return token;
	}

}
