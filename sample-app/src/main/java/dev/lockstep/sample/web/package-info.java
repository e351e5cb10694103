/**
 * How failures reach HTTP clients: problem details with a fitting status, never a stack trace.
 */
@NullMarked
package dev.lockstep.sample.web;

import org.jspecify.annotations.NullMarked;
