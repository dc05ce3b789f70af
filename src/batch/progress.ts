/**
 * Progress of the batch helpers: one line that updates in place in a notebook (tslab or Deno's
 * kernel: a display entry overwritten with Jupyter's `update_display_data`, see `findKernelDisplay`), a bar
 * on stderr in a terminal, nothing where nobody watches (CI, tests, piped output). Always reported to
 * the caller's `onProgress` too.
 */
import { notebookLine, type TextDisplay } from "../kernel/display";

export { notebookLine, type TextDisplay } from "../kernel/display";

/** Where a batch is. */
export interface ProgressEvent {
  /** What is being fetched (`yield curves`). */
  label: string;
  /** Calls finished (succeeded or failed). */
  done: number;
  total: number;
  failed: number;
  elapsedMs: number;
  /** The item that just finished (`EUR 2026-11-20`), when there is one. */
  item?: string;
  /** True on the last event. */
  finished: boolean;
}

/** Shows progress somewhere. */
export interface ProgressRenderer {
  update(event: ProgressEvent): void;
}

/**
 * `auto` (default): notebook line in a kernel (tslab, Deno), bar on a terminal's stderr, else nothing. `notebook`, `bar`
 * (stderr), `none`, or your own renderer.
 */
export type ProgressMode = "auto" | "notebook" | "bar" | "none" | ProgressRenderer;

export interface ProgressOptions {
  progress?: ProgressMode;
  /** Called after every finished call (and once at the start with `done: 0`). */
  onProgress?: (event: ProgressEvent) => void;
}

/**
 * `yield curves 12/40 (30%) · 1 failed · 3.2 s` while running, `yield curves 40/40 (100%) · 1 failed ·
 * done` at the end: the line a notebook keeps has no timing in it, so a replayed notebook shows the
 * same output as the run that recorded it (`onProgress` still gets `elapsedMs`).
 * @example
 * ```ts
 * import { progressLine } from "risk-portal-lab/frames";
 * progressLine({ label: "yield curves", done: 3, total: 12, failed: 0, elapsedMs: 1_200, finished: false });
 * ```
 */
export function progressLine(e: ProgressEvent): string {
  const pct = e.total > 0 ? Math.floor((e.done / e.total) * 100) : 100;
  const failed = e.failed > 0 ? ` · ${e.failed} failed` : "";
  const tail = e.finished ? "done" : `${(e.elapsedMs / 1000).toFixed(1)} s`;
  return `${e.label} ${e.done}/${e.total} (${pct}%)${failed} · ${tail}`;
}

/**
 * `[██████░░░░░░░░░░░░░░]` of the given width.
 * @example
 * ```ts
 * import { progressBar } from "risk-portal-lab/frames";
 * progressBar(3, 12); // a 20-cell bar, a quarter filled
 * ```
 */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.round((done / total) * width) : width;
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
}

/** At most one repaint per `intervalMs`; the last event is always shown. */
function throttled(paint: (e: ProgressEvent) => void, intervalMs: number): ProgressRenderer {
  let last = -Infinity;
  return {
    update(e) {
      const now = performance.now();
      if (!e.finished && now - last < intervalMs) return;
      last = now;
      paint(e);
    },
  };
}

/**
 * One line in a notebook, overwritten in place.
 * @example
 * ```ts
 * import { notebookLine, notebookRenderer } from "risk-portal-lab/frames";
 * const line = notebookLine(); // undefined outside a kernel
 * if (line) await frames.fetchYieldCurves(rp, { currencies: ["USD"], marketDates: ["2026-11-20"], progress: notebookRenderer(line) });
 * ```
 */
export function notebookRenderer(display: TextDisplay, intervalMs = 100): ProgressRenderer {
  return throttled((e) => display.text(progressLine(e)), intervalMs);
}

/**
 * A bar on a terminal stream (stderr), redrawn with `\r`, ended with a newline.
 * @example
 * ```ts
 * import { barRenderer } from "risk-portal-lab/frames";
 * await frames.fetchYieldCurves(rp, { currencies: ["USD", "EUR"], marketDates: ["2026-11-20"], progress: barRenderer() });
 * ```
 */
export function barRenderer(stream: NodeJS.WriteStream = process.stderr, intervalMs = 50): ProgressRenderer {
  return throttled((e) => {
    const line = `${progressBar(e.done, e.total)} ${progressLine(e)}`;
    const width = stream.columns && stream.columns > 10 ? stream.columns - 1 : line.length;
    stream.write(`\r${line.slice(0, width).padEnd(Math.min(width, line.length))}\x1b[K${e.finished ? "\n" : ""}`);
  }, intervalMs);
}

const NONE: ProgressRenderer = { update() {} };

/** The renderer for a mode (see {@link ProgressMode}). */
export function resolveRenderer(mode: ProgressMode = "auto"): ProgressRenderer {
  if (typeof mode === "object") return mode;
  if (mode === "none") return NONE;
  if (mode === "bar") return barRenderer();
  const display = notebookLine();
  if (mode === "notebook") return display ? notebookRenderer(display) : NONE;
  if (display) return notebookRenderer(display);
  return process.stderr.isTTY ? barRenderer() : NONE;
}

/** Tracks a batch and reports it to the renderer and the caller's callback. */
export class ProgressTracker {
  readonly #renderer: ProgressRenderer;
  readonly #onProgress?: (event: ProgressEvent) => void;
  readonly #started = performance.now();
  #done = 0;
  #failed = 0;

  constructor(
    readonly label: string,
    readonly total: number,
    options: ProgressOptions = {},
  ) {
    this.#renderer = resolveRenderer(options.progress);
    this.#onProgress = options.onProgress;
    this.#emit(undefined, total === 0);
  }

  /** One call finished. */
  step(item: string, ok: boolean): void {
    this.#done++;
    if (!ok) this.#failed++;
    this.#emit(item, this.#done >= this.total);
  }

  #emit(item: string | undefined, finished: boolean): void {
    const event: ProgressEvent = {
      label: this.label,
      done: this.#done,
      total: this.total,
      failed: this.#failed,
      elapsedMs: performance.now() - this.#started,
      finished,
    };
    if (item !== undefined) event.item = item;
    this.#renderer.update(event);
    this.#onProgress?.(event);
  }
}
