/**
 * How Lockstep talks to Redis: Lua scripts loaded once from resources and run by SHA over the
 * application's Lettuce connection. Internal to Lockstep.
 */
@NullMarked
package dev.lockstep.internal.redis;

import org.jspecify.annotations.NullMarked;
