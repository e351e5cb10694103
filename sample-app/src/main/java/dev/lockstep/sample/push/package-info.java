/**
 * The periodic push job (field reports 2 and 3), which should run once per firing across the cluster.
 */
@NullMarked
package dev.lockstep.sample.push;

import org.jspecify.annotations.NullMarked;
