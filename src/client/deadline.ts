/**
 * A call's deadline as an AbortSignal that aborts when it passes. An AbortController (its signal), a
 * listener limit and a timer per call cost ~5 µs, more than most of what the pipeline does for a small
 * answer (the profile of bench/throughput.mjs, where one per millisecond still meant one per call or
 * two), so calls whose deadlines fall in the same window share one controller and one timer: the
 * window is a millisecond for timeouts under 10 s (each call stops at its own deadline, as a timer's
 * resolution allows) and a thousandth of the timeout from 10 s, at most {@link MAX_WINDOW_MS}: a call
 * then stops at the end of its deadline's window, never before its deadline and less than 0.1% of its
 * timeout after it (16 ms of the default 60 s). A call without a deadline gets a controller that never
 * aborts. A deadline's timer is cleared as soon as its last call is done: no timer outlives the calls.
 */
import { setMaxListeners } from "node:events";

/** The deadline of one call: `signal` aborts when it passes; `release()` when the call is done. */
export interface Deadline {
  readonly signal: AbortSignal;
  release(): void;
}

/** The longest delay setTimeout takes (longer fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The widest window of deadlines one controller serves (see the module's note). */
export const MAX_WINDOW_MS = 16;
/** Timeouts shorter than this stop exactly at their millisecond. */
export const EXACT_BELOW_MS = 10_000;

/** The window a deadline `timeoutMs` from now is rounded up to: 1 ms under 10 s, else a thousandth of the timeout up to {@link MAX_WINDOW_MS}. */
export function windowMs(timeoutMs: number): number {
  return timeoutMs < EXACT_BELOW_MS ? 1 : Math.min(MAX_WINDOW_MS, Math.floor(timeoutMs / 1000));
}

/** No deadline: a controller that never aborts. */
class NoDeadline implements Deadline {
  readonly signal = new AbortController().signal;
  release(): void {}
}

/** The deadlines in use, by the millisecond (Date.now() clock) their window ends at. */
const slots = new Map<number, Slot>();

/** The calls whose deadline's window ends at the millisecond `end`: one controller, aborted then. */
class Slot implements Deadline {
  readonly #controller = new AbortController();
  readonly signal = this.#controller.signal;
  readonly #timer: ReturnType<typeof setTimeout>;
  #calls = 0;
  constructor(
    readonly end: number,
    delayMs: number,
  ) {
    // Every call of the slot listens to this one signal (fetch adds a listener per request).
    setMaxListeners(0, this.signal);
    this.#timer = setTimeout(() => {
      if (slots.get(end) === this) slots.delete(end);
      this.#controller.abort();
    }, delayMs);
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
  // The deadline rounded up to its window's end: every call whose deadline falls in the window shares it.
  const now = Date.now();
  const window = windowMs(timeoutMs);
  const end = Math.ceil((now + timeoutMs) / window) * window;
  const slot = slots.get(end);
  if (slot) return slot.join();
  const fresh = new Slot(end, end - now);
  slots.set(end, fresh);
  return fresh.join();
}
