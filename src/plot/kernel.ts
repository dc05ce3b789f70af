/**
 * Sending one Jupyter `display_data` message with a whole mime bundle from inside a tslab kernel.
 *
 * tslab's public `display.raw(type, value)` sends one mime type per message. It is a thin wrapper:
 * it calls `lastWriteDisplayData({ data: { [type]: value }, metadata: {}, transient }, update)`,
 * exported by `tslab/dist/jupyter.js`, and that function puts its first argument, as is, as the
 * content of a `display_data` message on the kernel's iopub channel (parent: the executing request),
 * signed like every other message. The Jupyter protocol defines that content as `{ data: mimebundle,
 * metadata, transient }`, so calling the same function with several types in `data` sends exactly one
 * well-formed message carrying all of them — through the same channel, signing and parent header as
 * tslab's own display.
 *
 * The function is set per execution (tslab assigns it before each cell runs), so it is read from the
 * module's exports at every call, never kept. The module is found in `require.cache` (the kernel may
 * run a tslab other than the one in our node_modules; requiring ours would find a copy that is not
 * connected to the kernel). If a future tslab no longer has it, `display.html` is used (one type).
 */
import path from "node:path";

/** A Jupyter mime bundle: mime type → value (text, or JSON for `+json` types). */
export type MimeBundle = Record<string, unknown>;

/** The content of a Jupyter `display_data` message. */
export interface DisplayContent {
  data: MimeBundle;
  metadata: Record<string, unknown>;
  transient: { display_id?: string };
}

/** How a bundle reaches the notebook. */
export interface KernelDisplay {
  /** `bundle`: the whole bundle in one message; `html-only`: a tslab without the bundle path (text/html alone). */
  mode: "bundle" | "html-only";
  send(bundle: MimeBundle): void;
}

type ModuleCache = Record<string, { exports?: unknown } | undefined>;
type WriteDisplayData = (content: DisplayContent, update: boolean) => void;

const TSLAB_JUPYTER = /[\\/]tslab[\\/]dist[\\/]jupyter\.js$/;

/**
 * The display of the tslab kernel this process is, while it runs (or has run) a cell; `undefined` in
 * a plain Node process, a test runner, or tslab's executor used without a kernel. `cache` and `load`
 * are injectable for tests.
 */
export function findKernelDisplay(cache: ModuleCache = require.cache, load: (id: string) => unknown = require): KernelDisplay | undefined {
  for (const id of Object.keys(cache)) {
    if (!TSLAB_JUPYTER.test(id)) continue;
    const jupyter = cache[id]?.exports as { lastWriteDisplayData?: unknown } | undefined;
    if (!jupyter || !("lastWriteDisplayData" in jupyter)) {
      const fallback = publicHtmlDisplay(id, load);
      if (fallback) return fallback;
      continue;
    }
    // Loaded, but no cell has run yet (tslab sets it when a cell starts): not displaying anywhere.
    if (typeof jupyter.lastWriteDisplayData !== "function") continue;
    return {
      mode: "bundle",
      send(bundle) {
        const write = jupyter.lastWriteDisplayData as WriteDisplayData;
        write({ data: bundle, metadata: {}, transient: {} }, false);
      },
    };
  }
  return undefined;
}

/** tslab's public `display.html`, for a tslab whose internals differ: one message, text/html only. */
function publicHtmlDisplay(jupyterId: string, load: (id: string) => unknown): KernelDisplay | undefined {
  try {
    const tslab = load(path.join(path.dirname(jupyterId), "public.js")) as { display?: { html?: (s: string) => void } };
    const html = tslab.display?.html;
    if (typeof html !== "function") return undefined;
    return {
      mode: "html-only",
      send(bundle) {
        const text = bundle["text/html"];
        html.call(tslab.display, typeof text === "string" ? text : String(bundle["text/plain"] ?? ""));
      },
    };
  } catch {
    return undefined;
  }
}
