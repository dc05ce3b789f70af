/**
 * The one place that knows Deno's Jupyter API. Under `deno jupyter` (Deno's kernel) the global
 * `Deno.jupyter` has `broadcast(msgType, content)`, which sends an iopub message for the running cell
 * (`display_data`, or `update_display_data` with a `display_id`), and `display(bundle, { raw: true, … })`
 * on top of it; outside the kernel `Deno.jupyter` is absent, or its getter throws (Deno 2 outside
 * `deno jupyter`), and under Node there is no `Deno` at all.
 *
 * Deno's kernel (2.9) sends a cell's `status: idle` from another thread than the cell's own outputs,
 * 2–15 ms after the cell's code returns, whatever is still being sent, and a frontend that closes the
 * cell at idle (JupyterLab, nbconvert, papermill) drops what comes later. Measured with plain nbconvert
 * (test/notebook/show-deno.test.ts): what is sent while the cell's
 * code still runs is on the wire before idle, when the kernel's socket has room; messages sent back to
 * back fill it, and then they and all after them wait for the kernel's event loop, after the cell. So
 * the sender calls `broadcast` (which starts sending at once; `display` waits a microtask first) and,
 * after a large message, waits for the socket to drain ({@link paceAfter}) before the next one. Awaiting
 * a send does not help: the kernel does not reliably wait for a cell's promise (it went idle mid-loop).
 * Printed text is worse: the kernel tags it with the request current when its stdio task sends it,
 * possibly the next cell's (scripts/jupyter-execute.py fences each cell to give it back).
 */
import type { MimeBundle } from "./tslab";

/** What of `Deno.jupyter` the display path uses (`broadcast` since Deno 1.37; `display` alone is the fallback). */
export interface DenoJupyter {
  display(bundle: MimeBundle, options: { raw: true; display_id?: string; update?: boolean }): Promise<void>;
  broadcast?(msgType: string, content: Record<string, unknown>): Promise<void>;
}

/** Messages this big (characters of their bundle) are followed by a pause proportional to their size. */
export const PACE_FROM_CHARS = 64 * 1024;
/** The pause after a large message: 1 ms per this many characters (3 ms after a 128 KiB plotly.js part). */
export const PACE_CHARS_PER_MS = 44 * 1024;
/**
 * The least pause after a new display (not after an update of one): the head start the kernel's publishing
 * gets on the cell's end. Deno's kernel (2.9, cli/js/jupyter_kernel.js) takes a display from the cell's
 * thread through a channel and publishes it from its own event loop (sign, then send), while the same loop
 * answers the cell's end with `execute_reply` and `idle`: the two race, and under load the small last
 * chart of a cell lost (one run in six in CI, test/notebook/show-deno.test.ts). Blocking the cell's thread
 * this long after a display holds its end back while the display goes out.
 */
export const DISPLAY_PAUSE_MS = 10;

/** The characters of a bundle as sent (strings, and JSON values serialised). */
export function bundleChars(bundle: MimeBundle): number {
  let n = 0;
  for (const value of Object.values(bundle))
    n += typeof value === "string" ? value.length : (JSON.stringify(value)?.length ?? 0);
  return n;
}

/**
 * The pause (ms) after a message of `chars` characters: none below {@link PACE_FROM_CHARS}. The cell's
 * code is blocked meanwhile (`Atomics.wait`), and the frontend reads what the kernel wrote, so the next
 * message finds room on the socket and is on the wire before the cell can end.
 */
export function paceAfter(chars: number): number {
  return chars < PACE_FROM_CHARS ? 0 : Math.ceil(chars / PACE_CHARS_PER_MS);
}

/** The pause after a message: its size's ({@link paceAfter}), at least {@link DISPLAY_PAUSE_MS} after a new display. */
export function pauseAfter(chars: number, update: boolean): number {
  const paced = paceAfter(chars);
  return update ? paced : Math.max(DISPLAY_PAUSE_MS, paced);
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));
/** Blocks this thread for `ms` (Deno allows `Atomics.wait` on its main thread). */
function pause(ms: number): void {
  if (ms > 0) Atomics.wait(pauseCell, 0, 0, ms);
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
 * order; each new display, and a large update, is followed by a pause ({@link pauseAfter}; `pause` is
 * injectable for tests). A send
 * that fails is reported on stderr, never thrown.
 */
export class DenoSender {
  constructor(
    readonly jupyter: DenoJupyter,
    readonly pauseMs: (ms: number) => void = pause,
  ) {}

  send(bundle: MimeBundle, options: { displayId?: string; update?: boolean } = {}): Promise<void> {
    let sent: Promise<void>;
    try {
      sent = Promise.resolve(this.start(bundle, options));
    } catch (error) {
      sent = Promise.reject(error);
    }
    this.pauseMs(pauseAfter(bundleChars(bundle), options.update === true));
    return sent.catch((error: unknown) => {
      console.error(
        `risk-portal-lab: Deno's kernel did not send a display (${error instanceof Error ? error.message : String(error)})`,
      );
    });
  }

  /** `broadcast` of the message when Deno has it (it starts sending synchronously), else `display`. */
  private start(bundle: MimeBundle, options: { displayId?: string; update?: boolean }): Promise<void> {
    const { broadcast } = this.jupyter;
    if (typeof broadcast === "function") {
      const transient = options.displayId !== undefined ? { display_id: options.displayId } : {};
      return broadcast.call(this.jupyter, options.update ? "update_display_data" : "display_data", {
        data: bundle,
        metadata: {},
        transient,
      });
    }
    const sendOptions: { raw: true; display_id?: string; update?: boolean } = { raw: true };
    if (options.displayId !== undefined) sendOptions.display_id = options.displayId;
    if (options.update) sendOptions.update = true;
    return this.jupyter.display(bundle, sendOptions);
  }
}
