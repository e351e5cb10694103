/** The reactive lock service's wiring; only with Reactor on the class path. */
@NullMarked
package dev.lockstep.autoconfigure.reactive;

import org.jspecify.annotations.NullMarked;
