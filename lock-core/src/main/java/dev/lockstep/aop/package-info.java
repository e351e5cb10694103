/**
 * How the annotations are applied: one cache of annotated methods resolved once
 * ({@link dev.lockstep.aop.AnnotatedMethods}, with {@link dev.lockstep.internal.MethodAttributes} for
 * placeholders and durations), one advisor shape ({@link dev.lockstep.aop.AnnotatedMethodAdvisor}),
 * and the advisor and interceptor of {@code @DistributedLock} and {@code @SerialGroup}. The job
 * guard's advisor, in {@code dev.lockstep.job}, is of the same shape.
 */
@NullMarked
package dev.lockstep.aop;

import org.jspecify.annotations.NullMarked;
