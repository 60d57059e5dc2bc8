/** The time source of the service (tests hand in their own). A leaf: anything may import it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
