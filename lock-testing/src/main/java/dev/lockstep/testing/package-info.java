/**
 * Real Redis servers and child JVMs for Lockstep's tests, benchmarks and sample app: no mocks.
 */
@NullMarked
package dev.lockstep.testing;

import org.jspecify.annotations.NullMarked;
