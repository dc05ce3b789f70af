/** The simulator's clock: wall time by default, or a manual clock tests move by hand. */

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface ManualClock extends Clock {
  /** Moves the clock forward. */
  advance(ms: number): void;
  /** Sets the clock. */
  set(ms: number): void;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; starts at `startMs` (default: now). */
export function manualClock(startMs = Date.now()): ManualClock {
  let t = startMs;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(ms) {
      t = ms;
    },
  };
}
