/**
 * Grouped imports (field report 1): serial and in arrival order per tenant and entity, parallel across groups.
 */
@NullMarked
package dev.lockstep.sample.importing;

import org.jspecify.annotations.NullMarked;
