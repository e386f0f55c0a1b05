/** The one source of time for business rules (DESIGN §8): the sandbox can move it forward. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
