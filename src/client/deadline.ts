/**
 * A call's deadline as an AbortSignal that aborts when it passes. An AbortController and a timer per
 * call cost more than most of what the pipeline does for a small answer (the profile of
 * bench/throughput.mjs), so calls whose deadlines fall in the same millisecond (the same timeout,
 * started in the same millisecond: many, under load) share one controller and one timer. A timer has
 * a resolution of a millisecond anyway: each call still stops at its own deadline. A call without a
 * deadline gets a controller that never aborts. A deadline's timer is cleared as soon as its last call
 * is done: no timer outlives the calls.
 */
import { setMaxListeners } from "node:events";

/** The deadline of one call: `signal` aborts when it passes; `release()` when the call is done. */
export interface Deadline {
  readonly signal: AbortSignal;
  release(): void;
}

/** The longest delay setTimeout takes (longer fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** No deadline: a controller that never aborts. */
class NoDeadline implements Deadline {
  readonly signal = new AbortController().signal;
  release(): void {}
}

/** The deadlines in use, by the millisecond (Date.now() clock) they pass at. */
const slots = new Map<number, Slot>();

/** The calls whose deadline is the millisecond `end`: one controller, aborted then. */
class Slot implements Deadline {
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  #calls = 0;
  constructor(
    readonly end: number,
    readonly timeoutMs: number,
  ) {
    // Every call of the slot listens to this one signal (fetch adds a listener per request).
    setMaxListeners(0, this.#controller.signal);
    this.#timer = setTimeout(() => {
      slots.delete(end);
      this.#controller.abort();
    }, timeoutMs);
  }
  get signal(): AbortSignal {
    return this.#controller.signal;
  }
  join(): this {
    this.#calls++;
    return this;
  }
  release(): void {
    if (--this.#calls > 0) return;
    clearTimeout(this.#timer);
    if (slots.get(this.end) === this) slots.delete(this.end);
  }
}

/**
 * Starts a deadline `timeoutMs` from now. Each call's deadline must be released once, when the call is done
 * (a shared one keeps its timer while any of its calls is not).
 */
export function startDeadline(timeoutMs: number): Deadline {
  if (!(Number.isFinite(timeoutMs) && timeoutMs <= MAX_TIMER_MS)) return new NoDeadline();
  // Two calls share a deadline only when their timer would be the same: the same timeout, set in the same millisecond.
  const end = Date.now() + timeoutMs;
  const slot = slots.get(end);
  if (slot?.timeoutMs === timeoutMs) return slot.join();
  const fresh = new Slot(end, timeoutMs);
  if (!slot) slots.set(end, fresh);
  return fresh.join();
}
