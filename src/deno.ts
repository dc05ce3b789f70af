/**
 * The one place that knows Deno's Jupyter API. Under `deno jupyter` (Deno's kernel) the global
 * `Deno.jupyter` has `display(bundle, { raw: true, display_id, update })`, which sends a
 * `display_data` (or, with `update`, an `update_display_data`) message for the running cell; outside
 * the kernel `Deno.jupyter` is absent, or its getter throws (Deno 2 outside `deno jupyter`), and under
 * Node there is no `Deno` at all.
 *
 * Deno's kernel (2.9) sends a cell's `status: idle` from another thread than the cell's own outputs,
 * 5 ms after its reply: an output still being sent then, a large one especially, reaches the frontend
 * after idle, and a frontend that closes the cell at idle (nbconvert, nbclient) drops it: that is the
 * kernel's to fix (scripts/jupyter-execute.py keeps such late outputs). Printed text is worse: the
 * kernel tags it with the request current when its stdio task sends it, possibly the next cell's (the
 * script fences each cell to give it back).
 */
import type { MimeBundle } from "./tslab";

/** What of `Deno.jupyter` the display path uses. */
export interface DenoJupyter {
  display(bundle: MimeBundle, options: { raw: true; display_id?: string; update?: boolean }): Promise<void>;
}

/**
 * `Deno.jupyter` when this process is Deno's Jupyter kernel, else undefined. `globals` is injectable
 * for tests.
 */
export function denoJupyter(globals: object = globalThis): DenoJupyter | undefined {
  const deno = (globals as { Deno?: { jupyter?: unknown } }).Deno;
  if (typeof deno !== "object" || deno === null) return undefined;
  let jupyter: unknown;
  try {
    jupyter = deno.jupyter; // a getter that throws outside `deno jupyter`
  } catch {
    return undefined;
  }
  if (typeof jupyter !== "object" || jupyter === null) return undefined;
  return typeof (jupyter as { display?: unknown }).display === "function" ? (jupyter as DenoJupyter) : undefined;
}

/**
 * Sends displays, each at once (Deno's kernel takes the cell a message belongs to when its send starts,
 * so a send held back behind another could land in the next cell); they start, and go out, in call
 * order. A send that fails is reported on stderr, never thrown.
 */
export class DenoSender {
  constructor(readonly jupyter: DenoJupyter) {}

  send(bundle: MimeBundle, options: { displayId?: string; update?: boolean } = {}): Promise<void> {
    const sendOptions: { raw: true; display_id?: string; update?: boolean } = { raw: true };
    if (options.displayId !== undefined) sendOptions.display_id = options.displayId;
    if (options.update) sendOptions.update = true;
    let sent: Promise<void>;
    try {
      sent = Promise.resolve(this.jupyter.display(bundle, sendOptions));
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.catch((error: unknown) => {
      console.error(`risk-portal-lab: Deno's kernel did not send a display (${error instanceof Error ? error.message : String(error)})`);
    });
  }
}
