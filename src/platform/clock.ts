/** Time as a dependency, so tests can move it (lock expiry, code expiry, token expiry). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
