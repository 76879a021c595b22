/**
 * The clock schedules read. Tests move it (a Durable Object in workerd holds `Date.now()` still
 * during synchronous work and cannot be told another time); nothing else sets it.
 * @module
 */

/** `now()` in epoch ms; `Date.now()` unless a test replaced it. */
export const scheduleClock = { now: (): number => Date.now() };
