/**
 * The notebook session: what lives as long as one kernel session (one notebook run) — whether plotly.js
 * was embedded yet, how figures are numbered, the connections `connect()` opened. The modules that keep
 * such state register with it; the headless runner starts and ends a session through it, and no module
 * finds another by looking through the module cache.
 *
 * One session per process, shared by every copy of the package a process loads (a notebook may load
 * `dist/` while the runner came from elsewhere): it lives on `globalThis` under a registered symbol.
 */

export interface NotebookSession {
  /** Runs `reset` whenever a new session starts (state that must not leak from one notebook to the next). */
  onStart(reset: () => void): void;
  /** Runs `close` when the session ends (what a notebook opened and did not close). */
  onEnd(close: () => Promise<void> | void): void;
  /** A new session: every `onStart` hook runs. */
  start(): void;
  /** The session ends: every `onEnd` hook runs; failures are collected, not thrown one by one. */
  end(): Promise<PromiseSettledResult<void>[]>;
  /**
   * The `dist/` directory of the tslab whose display reaches the notebook, registered by the headless
   * runner while a notebook runs (see `loadRunnerTslab`); undefined otherwise (a kernel finds its own).
   */
  tslabDir?: string;
}

const KEY = Symbol.for("risk-portal-lab.notebook-session");

/** The process's notebook session (made on first use). */
export function notebookSession(): NotebookSession {
  const holder = globalThis as { [KEY]?: NotebookSession };
  return (holder[KEY] ??= createSession());
}

function createSession(): NotebookSession {
  const starts = new Set<() => void>();
  const ends = new Set<() => Promise<void> | void>();
  return {
    onStart: (reset) => void starts.add(reset),
    onEnd: (close) => void ends.add(close),
    start: () => {
      for (const reset of starts) reset();
    },
    end: () => Promise.allSettled([...ends].map(async (close) => close())),
  };
}
