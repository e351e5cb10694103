/**
 * The Lockstep console: a web page, served from this jar under {@code lockstep.console.path}, that
 * shows every instance, lock, queue and guarded job of the cluster as Redis holds them, with an
 * hour of history, and the actions operators need. See {@link dev.lockstep.console.ConsoleProperties}.
 */
@NullMarked
package dev.lockstep.console;

import org.jspecify.annotations.NullMarked;
