package dev.lockstep.sample.user;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.lockstep.LockContext;
import dev.lockstep.annotation.DistributedLock;

/**
 * Initialises a user from an "init user" message, which the broker may deliver more than once and
 * to several instances at the same time. The check-then-insert runs under the pin's lock, and the
 * transaction commits before the lock is released, so the next caller for that pin finds the row.
 */
@Service
public class UserInitialisationService {

	private final UserRepository users;

	private final Duration profileLookupDelay;

	private final String instanceId;

	UserInitialisationService(UserRepository users, @Value("${sample.users.profile-lookup-delay}") Duration profileLookupDelay,
			@Value("${sample.instance-id}") String instanceId) {
		this.users = users;
		this.profileLookupDelay = profileLookupDelay;
		this.instanceId = instanceId;
	}

	/**
	 * Creates the user unless it exists, and renames it (a fenced write) when the name differs. A
	 * {@code null} or blank pin fails in the lock's key expression (LockKeyException) before a
	 * transaction starts.
	 */
	@DistributedLock(key = "#pin")
	@Transactional
	public UserInitialisation initialise(String pin, String name) {
		var existing = this.users.findByPin(pin);
		if (existing.isPresent()) {
			if (existing.get().name().equals(name)) {
				return new UserInitialisation(existing.get(), false, this.instanceId);
			}
			this.users.rename(pin, name);
			return new UserInitialisation(this.users.findByPin(pin).orElseThrow(), false, this.instanceId);
		}
		lookUpProfile();
		long token = LockContext.current().orElseThrow().fencingToken();
		return new UserInitialisation(this.users.insert(pin, name, this.instanceId, token), true, this.instanceId);
	}

	/**
	 * Stands for the remote profile call the consumers of the field report make between the check
	 * and the insert: it is what widens the window in which, without the lock, a second delivery
	 * also finds no user and inserts a duplicate.
	 */
	private void lookUpProfile() {
		try {
			Thread.sleep(this.profileLookupDelay.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while looking up the profile", ex);
		}
	}

}
