/**
 * The job guard: one run per firing of a scheduled job across all instances.
 */
@NullMarked
package dev.lockstep.job;

import org.jspecify.annotations.NullMarked;
