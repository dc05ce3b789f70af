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

/**
 * A clock that only moves when told to; starts at `startMs` (default: now).
 * @example
 * ```ts
 * const clock = manualClock(Date.parse("2026-11-20T21:00:00Z"));
 * const sim = await startSimulator({ clock });
 * clock.advance(2 * 3_600_000); // past 22:00 UTC: the simulator's daily batch runs
 * await sim.close();
 * ```
 */
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
