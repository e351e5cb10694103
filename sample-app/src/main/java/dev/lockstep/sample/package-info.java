/**
 * The Lockstep sample app, packaged by feature: {@code user}, {@code importing}, {@code push},
 * {@code web} (error answers) and {@code redis} (the embedded Redis for a machine without one).
 */
@NullMarked
package dev.lockstep.sample;

import org.jspecify.annotations.NullMarked;
