/**
 * Support shared by Lockstep's features and nothing else: not API, public only so that the
 * feature packages can use it. Applications must not depend on it.
 */
@NullMarked
package dev.lockstep.internal;

import org.jspecify.annotations.NullMarked;
