/**
 * User initialisation from retried messages (field report 3): one transaction per pin at a time.
 */
@NullMarked
package dev.lockstep.sample.user;

import org.jspecify.annotations.NullMarked;
