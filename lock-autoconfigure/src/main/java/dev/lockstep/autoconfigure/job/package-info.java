/**
 * Auto-configuration of the job guard.
 */
@NullMarked
package dev.lockstep.autoconfigure.job;

import org.jspecify.annotations.NullMarked;
