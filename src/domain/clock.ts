/**
 * The one source of time for business rules (docs/jobs-and-clock.md#the-service-clock): the
 * sandbox can move it forward.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
