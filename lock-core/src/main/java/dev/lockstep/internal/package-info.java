/**
 * Support shared by Lockstep's features and its own modules (the auto-configuration, the adapters)
 * and nothing else: not API, public only so that those can use it, and changed without notice.
 * Applications must not depend on it.
 */
@NullMarked
package dev.lockstep.internal;

import org.jspecify.annotations.NullMarked;
