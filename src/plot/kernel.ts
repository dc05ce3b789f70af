/**
 * Sending one Jupyter `display_data` message with a whole mime bundle from inside a tslab kernel.
 *
 * tslab's public `display.raw(type, value)` sends one mime type per message. It is a thin wrapper:
 * it calls `lastWriteDisplayData({ data: { [type]: value }, metadata: {}, transient }, update)`,
 * exported by tslab's `jupyter` module (src/tslab.ts), and that function puts its first argument, as is, as the
 * content of a `display_data` message on the kernel's iopub channel (parent: the executing request),
 * signed like every other message. The Jupyter protocol defines that content as `{ data: mimebundle,
 * metadata, transient }`, so calling the same function with several types in `data` sends exactly one
 * well-formed message carrying all of them — through the same channel, signing and parent header as
 * tslab's own display.
 *
 * The function is set per execution (tslab assigns it before each cell runs), so it is read from the
 * module's exports at every call, never kept. Which tslab (the kernel's own, wherever installed, or the
 * runner's) is src/tslab.ts's business. If a future tslab no longer has it, `display.html` is used
 * (one type).
 */
import { displayTslab, type DisplayContent, type MimeBundle, type TslabHandle } from "../tslab";

export type { DisplayContent, MimeBundle } from "../tslab";

/** How a bundle reaches the notebook. */
export interface KernelDisplay {
  /** `bundle`: the whole bundle in one message; `html-only`: a tslab without the bundle path (text/html alone). */
  mode: "bundle" | "html-only";
  send(bundle: MimeBundle): void;
}

/**
 * The display of the tslab kernel (or runner) this process displays through, while it runs (or has run)
 * a cell; `undefined` in a plain Node process, a test runner, or before any cell ran. `tslab` is
 * injectable for tests.
 */
export function findKernelDisplay(tslab: TslabHandle | undefined = displayTslab()): KernelDisplay | undefined {
  if (!tslab) return undefined;
  const { jupyter } = tslab;
  if (!("lastWriteDisplayData" in jupyter)) return publicHtmlDisplay(tslab);
  // Loaded, but no cell has run yet (tslab sets it when a cell starts): not displaying anywhere.
  if (typeof jupyter.lastWriteDisplayData !== "function") return undefined;
  return {
    mode: "bundle",
    send(bundle) {
      const write = jupyter.lastWriteDisplayData as (content: DisplayContent, update: boolean) => void;
      write({ data: bundle, metadata: {}, transient: {} }, false);
    },
  };
}

/** tslab's public `display.html`, for a tslab whose internals differ: one message, text/html only. */
function publicHtmlDisplay(tslab: TslabHandle): KernelDisplay | undefined {
  const display = tslab.publicApi()?.display;
  const html = display?.html;
  if (typeof html !== "function") return undefined;
  return {
    mode: "html-only",
    send(bundle) {
      const text = bundle["text/html"];
      html.call(display, typeof text === "string" ? text : String(bundle["text/plain"] ?? ""));
    },
  };
}
