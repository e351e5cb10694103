/**
 * Auto-configuration of serial queues.
 */
@NullMarked
package dev.lockstep.autoconfigure.queue;

import org.jspecify.annotations.NullMarked;
