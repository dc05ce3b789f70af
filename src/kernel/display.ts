/**
 * The display layer: how a figure, a table or a progress line reaches the notebook, whichever
 * TypeScript kernel runs it.
 *
 * - tslab (today's kernel, and the headless runner, which uses tslab's executor): one `display_data`
 *   message with the whole mime bundle, through the function tslab's own `display.raw` calls (see
 *   the tslab module beside this one, the one file that knows tslab's modules); lines updated in place through tslab's
 *   public `newDisplay()`.
 * - Deno's kernel (`deno jupyter`): `Deno.jupyter.broadcast` of a `display_data` ({@link DenoSender}), which
 *   holds the cell until the message is on the kernel's wire (`kernelIopub`); lines updated in place
 *   with a `display_id` (`update_display_data`). Figures, tables and DataFrames also answer
 *   `Symbol.for("Jupyter.display")`, so a bare `fig` or `table` as a cell's last expression renders
 *   there too ({@link makeDisplayable}). tslab prints a cell's last value with `console.log` instead:
 *   their `util.inspect.custom` displays them then, and says in one line what they are otherwise.
 * - Plain Node (scripts, tests, a terminal): no kernel display; `plot.show` writes files, progress goes
 *   to a terminal's stderr.
 */
import { randomUUID } from "node:crypto";
import type { InspectOptionsStylized, inspect as nodeInspect } from "node:util";
import { DenoSender, denoJupyter, kernelWatch, type DenoJupyter } from "./deno";
import { setDisplayMarker } from "../table/column-table";
import {
  displayTslab,
  displayTslabDir,
  printingCellResult,
  watchKernelCells,
  type DisplayContent,
  type MimeBundle,
  type TslabHandle,
} from "./tslab";

export type { MimeBundle } from "./tslab";

/** A display entry that each `text(s)` call replaces (a progress line). */
export interface TextDisplay {
  text(s: string): void;
}

/**
 * Where a bundle goes in the notebook: shown as a new output under `displayId` (`update: false`), or
 * replacing every output shown under it, wherever it is (`update: true`, Jupyter's `update_display_data`).
 */
export interface DisplayPlace {
  displayId: string;
  update: boolean;
}

/** How bundles reach the notebook. */
export interface KernelDisplay {
  kernel: "tslab" | "deno";
  /** `bundle`: the whole bundle in one message; `html-only`: a tslab without the bundle path (text/html alone). */
  mode: "bundle" | "html-only";
  /** Sends a bundle as a new output, or, with a `place`, under a display id (see {@link DisplayPlace}). */
  send(bundle: MimeBundle, place?: DisplayPlace): void;
  /** A new display entry updated in place; undefined when this kernel cannot update one. */
  line(): TextDisplay | undefined;
}

/**
 * The display of the kernel this process runs in, while it runs a cell: tslab's (the kernel's own or
 * the runner's), else Deno's; `undefined` in a plain Node process, a test runner, or a tslab before any
 * cell ran. `tslab` and `deno` are injectable for tests.
 */
export function findKernelDisplay(
  tslab: TslabHandle | undefined = displayTslab(),
  deno: DenoJupyter | undefined = denoJupyter(),
): KernelDisplay | undefined {
  if (tslab) return tslabDisplay(tslab);
  if (deno) return denoDisplay(deno);
  return undefined;
}

/**
 * A line in the running cell's output that each `text(s)` replaces (tslab and Deno); undefined outside
 * a notebook kernel. What the batch helpers' progress uses; a notebook's own loop can too:
 *
 * @example
 * ```ts
 * const line = frames.notebookLine();
 * for (let poll = 1; ; poll++) { …; line ? line.text(`poll ${poll} · ${state}`) : console.log(state); }
 * ```
 */
export function notebookLine(display: KernelDisplay | undefined = findKernelDisplay()): TextDisplay | undefined {
  return display?.line();
}

function tslabDisplay(tslab: TslabHandle): KernelDisplay | undefined {
  const { jupyter } = tslab;
  if (!("lastWriteDisplayData" in jupyter)) return tslabHtmlDisplay(tslab);
  // Loaded, but no cell has run yet (tslab sets it when a cell starts): not displaying anywhere.
  if (typeof jupyter.lastWriteDisplayData !== "function") return undefined;
  return {
    kernel: "tslab",
    mode: "bundle",
    // Read at each send: tslab sets the function anew for each cell.
    send(bundle, place) {
      const write = jupyter.lastWriteDisplayData as (content: DisplayContent, update: boolean) => void;
      const transient = place ? { display_id: place.displayId } : {};
      write({ data: bundle, metadata: {}, transient }, place?.update ?? false);
    },
    line: () => tslabLine(tslab),
  };
}

/** tslab's public `display.html`, for a tslab whose internals differ: one message, text/html only. */
function tslabHtmlDisplay(tslab: TslabHandle): KernelDisplay | undefined {
  const display = tslab.publicApi()?.display;
  const html = display?.html;
  if (typeof html !== "function") return undefined;
  // A placed bundle goes through a display entry of tslab's own (its first html() shows, the next ones update).
  const entries = new Map<string, ReturnType<typeof tslabEntry>>();
  return {
    kernel: "tslab",
    mode: "html-only",
    send(bundle, place) {
      const text = bundle["text/html"];
      const page = typeof text === "string" ? text : String(bundle["text/plain"] ?? "");
      if (!place) return html.call(display, page);
      let entry = entries.get(place.displayId);
      if (!entry) entries.set(place.displayId, (entry = tslabEntry(tslab)));
      if (typeof entry?.html === "function") entry.html(page);
      else html.call(display, page);
    },
    line: () => tslabLine(tslab),
  };
}

/** tslab's public `newDisplay()`: a display entry that `text` overwrites in place. */
function tslabLine(tslab: TslabHandle): TextDisplay | undefined {
  return tslabEntry(tslab);
}

/** A display entry of tslab's public `newDisplay()` (its first call shows, later ones overwrite), or undefined. */
function tslabEntry(tslab: TslabHandle): { text(s: string): void; html?(s: string): void } | undefined {
  const newDisplay = tslab.publicApi()?.newDisplay;
  return typeof newDisplay === "function" ? newDisplay() : undefined;
}

function denoDisplay(jupyter: DenoJupyter): KernelDisplay {
  const sender = new DenoSender(jupyter);
  return {
    kernel: "deno",
    mode: "bundle",
    send: (bundle, place) => void sender.send(bundle, place),
    line() {
      const displayId = `rpl-line-${randomUUID()}`;
      let shown = false;
      return {
        text(s) {
          void sender.send({ "text/plain": s }, { displayId, update: shown });
          shown = true;
        },
      };
    },
  };
}

/** The symbol Deno's kernel (and other JavaScript kernels) call to display a cell's result. */
export const JUPYTER_DISPLAY = Symbol.for("Jupyter.display");

/** Makes the mime bundle of a displayable value (Deno's kernel awaits a promise); set by `plot.show`'s module. */
type BundleMaker = (value: object) => MimeBundle | Promise<MimeBundle>;
let bundleMaker: BundleMaker | undefined;

/** Registers how displayable values become mime bundles (`plot.show`'s module does, when it loads). */
export function setBundleMaker(make: BundleMaker): void {
  bundleMaker = make;
}

function displayMethod(this: object): MimeBundle | Promise<MimeBundle> {
  return bundleMaker ? bundleMaker(this) : { "text/plain": Object.prototype.toString.call(this) };
}

/** How a displayable value is shown in the running kernel, and named in a line; set by `plot.show`'s module. */
export interface ValuePrinter {
  /** Displays the value in the running kernel (as `plot.show` does). */
  show(value: object): void;
  /** One line naming the value and how to show it. */
  describe(value: object): string;
}
let valuePrinter: ValuePrinter | undefined;

/** Registers how displayable values are shown and described under tslab (`plot.show`'s module does, when it loads). */
export function setValuePrinter(printer: ValuePrinter): void {
  valuePrinter = printer;
}

/**
 * A displayable value's `util.inspect.custom`. tslab prints a cell's last value with `console.log`,
 * which inspects it: under tslab (its kernel, or the runner's) the value is then displayed as
 * `plot.show` would show it and prints nothing; anything else there that inspects it (a cell's own
 * `console.log(df)`, a value inside an array) gets one line saying what it is and how to show it, not
 * its internals. Outside tslab (scripts, tests), Node's own inspection of its fields, as before.
 */
function inspectMethod(
  this: object,
  depth: number,
  options: InspectOptionsStylized,
  inspect: typeof nodeInspect,
): string {
  if (!valuePrinter || displayTslabDir() === undefined)
    return inspect(this, { ...options, depth, customInspect: false });
  if (depth === options.depth && printingCellResult() && findKernelDisplay()) {
    valuePrinter.show(this);
    dropEmptyLine();
    return "";
  }
  return valuePrinter.describe(this);
}

/** The symbol Node's `util.inspect` (and so `console.log`) calls for an object's own text. */
const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/**
 * Makes what `target` (a prototype: the display handle's) stands for show nothing as a cell's last value,
 * for a value whose output is already in the notebook. Deno's kernel sends the bundle of
 * `Symbol.for("Jupyter.display")` as the cell's result: here an empty one, which no frontend draws (our
 * runners store no output for it; nbconvert stores an `execute_result` with empty `data`). tslab prints a
 * cell's last value with `console.log`: `util.inspect.custom` gives nothing then (the empty line
 * dropped), and `describe()`'s line anywhere else (a cell's own `console.log(h)`, plain Node). Returns `target`.
 */
export function quietResult<T extends object>(target: T, describe: (value: T) => string): T {
  defineHidden(target, JUPYTER_DISPLAY, () => ({}));
  defineHidden(target, INSPECT, function (this: T, depth: number, options?: InspectOptionsStylized): string {
    const underTslab = !("Deno" in globalThis) && displayTslabDir() !== undefined;
    if (underTslab && depth === options?.depth && printingCellResult()) {
      dropEmptyLine();
      return "";
    }
    return describe(this);
  });
  return target;
}

/**
 * The empty line `console.log` writes next (the text of a value shown instead), dropped: the cell then
 * shows the display alone, as under Deno's kernel. The write follows at once; the watch ends with
 * this task either way.
 */
function dropEmptyLine(): void {
  const stdout = process.stdout;
  const write = stdout.write;
  const once = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
    stdout.write = write;
    return chunk === "\n" ? true : (write as (...a: unknown[]) => boolean).apply(this, [chunk, ...rest]);
  };
  stdout.write = once;
  queueMicrotask(() => {
    if (stdout.write === once) stdout.write = write;
  });
}

function defineHidden(target: object, key: symbol, value: unknown): void {
  if (!Object.prototype.hasOwnProperty.call(target, key))
    Object.defineProperty(target, key, { value, enumerable: false, configurable: true, writable: true });
}

/**
 * Gives `target` (a figure, or a prototype: ColumnTable's, danfo DataFrame's) a non-enumerable
 * `[Symbol.for("Jupyter.display")]()` returning its mime bundle, so a bare value as a cell's last
 * expression renders in Deno's kernel as `plot.show` would show it; and, under Node, a non-enumerable
 * `util.inspect.custom` that does the same under tslab (see {@link inspectMethod}). JSON, equality checks
 * and `for … in` do not see them. Existing own methods are kept. Returns `target`.
 */
export function makeDisplayable<T extends object>(target: T): T {
  defineHidden(target, JUPYTER_DISPLAY, displayMethod);
  // Deno's console calls the same symbol, and its inspect may not take `customInspect: false`.
  if (!("Deno" in globalThis)) defineHidden(target, INSPECT, inspectMethod);
  return target;
}

// In a tslab kernel, a cell's error is explained where tslab's message leaves the user guessing.
watchKernelCells();

// In Deno's kernel, the watcher of its iopub starts now (its worker takes about a second to start), not
// with the first display, which would wait for it.
if (denoJupyter()) kernelWatch();

// The table room builds tables (and diffs) without knowing any kernel: they are marked here.
setDisplayMarker(makeDisplayable);
