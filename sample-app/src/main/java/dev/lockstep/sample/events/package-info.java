/**
 * Sign-ups for events with a participant limit (field report 4): a bounded counter shared by every
 * instance, and a rate-limited read of an event's places.
 */
@NullMarked
package dev.lockstep.sample.events;

import org.jspecify.annotations.NullMarked;
