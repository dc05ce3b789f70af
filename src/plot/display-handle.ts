/**
 * What `plot.show` returns: a handle on the output it made, to replace it in place (a chart that fills in
 * as a poll goes on) and to close it. In a notebook (tslab or Deno's kernel) the output is shown under a
 * display id of its own and each `update` sends Jupyter's `update_display_data` for it, from whichever
 * cell runs then: the frontend (and nbconvert, and our runner) replaces the output where it was shown.
 * Outside a kernel, `show` wrote an HTML page; `update` writes another, as `show` would.
 */
import { randomUUID } from "node:crypto";
import { quietResult, type KernelDisplay, type MimeBundle } from "../kernel/display";

/** How a handle draws its value: the bundles in a notebook (its own first, then any to add), or a page outside. */
export interface HandleRenderer<V> {
  /** The value's bundle, then bundles to send after it as new outputs (plotly.js parts, the first time). */
  bundles(value: V): MimeBundle[];
  /** Outside a kernel: writes the value's page (printing its path, as `show` does) and returns the path. */
  page(value: V): string;
}

/** Options of {@link DisplayHandle.close}. */
export interface CloseOptions {
  /** Also empty the output (an empty bundle replaces it, so nothing is drawn). Default false: the last content stays. */
  clear?: boolean;
}

/**
 * A shown figure or table that can be replaced in place. `update(next)` replaces the output (a figure, a
 * table, a DataFrame: anything `plot.show` takes, of the same kind or not); `close()` ends the handle.
 * As a cell's last value it prints nothing (the output is already there).
 */
export class DisplayHandle<V = unknown> {
  /** The Jupyter display id of the output; undefined outside a kernel. */
  readonly displayId: string | undefined;
  readonly #display: KernelDisplay | undefined;
  readonly #render: HandleRenderer<V>;
  #file: string | undefined;
  #closed = false;
  #updates = 0;

  /** Shows `value` (through `display`, or as a page when there is none) and returns its handle. */
  constructor(display: KernelDisplay | undefined, value: V, render: HandleRenderer<V>) {
    this.#display = display;
    this.#render = render;
    this.displayId = display ? `rpl-show-${randomUUID()}` : undefined;
    this.#draw(value, false);
  }

  /** Outside a kernel: the HTML page written last (by `show`, or by the last `update`); undefined in a notebook. */
  get file(): string | undefined {
    return this.#file;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** How many times the output was replaced. */
  get updates(): number {
    return this.#updates;
  }

  /**
   * Replaces the output with `next`, in place: in a notebook one `update_display_data` (and, when `next`
   * is the session's first chart, plotly.js in parts after it, as new outputs of the running cell);
   * outside a kernel a new page, its path printed (as `show` does). Throws after {@link close}.
   *
   * @example
   * ```ts
   * const chart = plot.show(plot.yieldCurve(df));
   * chart.update(plot.yieldCurve(df)); // redrawn where it was shown
   * ```
   */
  update(next: V): void {
    if (this.#closed)
      throw new Error(
        "plot.show(…).update: this display was closed (close() keeps its last content); call plot.show(…) for a new one",
      );
    this.#draw(next, true);
    this.#updates++;
  }

  /**
   * Ends the handle: later `update` calls throw. The output keeps its last content, unless
   * `{ clear: true }`: then an empty bundle replaces it and nothing is drawn there (outside a kernel the
   * page stays either way). Closing twice does nothing more.
   *
   * @example
   * ```ts
   * const chart = plot.show(plot.yieldCurve(df));
   * chart.close(); // the chart stays as it is; chart.update(…) now throws
   * ```
   */
  close(options: CloseOptions = {}): void {
    if (this.#closed) return;
    this.#closed = true;
    if (options.clear && this.#display && this.displayId)
      this.#display.send({}, { displayId: this.displayId, update: true });
  }

  #draw(value: V, update: boolean): void {
    if (!this.#display || !this.displayId) {
      this.#file = this.#render.page(value);
      return;
    }
    const [own, ...after] = this.#render.bundles(value);
    this.#display.send(own!, { displayId: this.displayId, update });
    for (const bundle of after) this.#display.send(bundle);
  }
}

// As a cell's last value (`plot.show(fig)` ends most cells) the handle shows nothing: its output is there.
quietResult(DisplayHandle.prototype, (h) =>
  h.displayId
    ? `DisplayHandle ${h.displayId} (${h.closed ? "closed" : "open"}, ${h.updates} update${h.updates === 1 ? "" : "s"})`
    : `DisplayHandle ${h.file ?? "(no page)"} (${h.closed ? "closed" : "open"})`,
);
