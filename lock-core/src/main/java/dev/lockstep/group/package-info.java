/**
 * Serial groups: per-group FIFO execution on top of the fair lock.
 */
@NullMarked
package dev.lockstep.group;

import org.jspecify.annotations.NullMarked;
