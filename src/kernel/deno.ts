/**
 * The one place that knows Deno's Jupyter API. Under `deno jupyter` (Deno's kernel) the global
 * `Deno.jupyter` has `broadcast(msgType, content)`, which sends an iopub message for the running cell
 * (`display_data`, or `update_display_data` with a `display_id`), and `display(bundle, { raw: true, … })`
 * on top of it; outside the kernel `Deno.jupyter` is absent, or its getter throws (Deno 2 outside
 * `deno jupyter`), and under Node there is no `Deno` at all.
 *
 * What Deno's kernel (2.9) guarantees, and what not. `broadcast` only queues the message for the
 * kernel's thread and returns (cli/ops/jupyter.rs, op_jupyter_broadcast; cli/js/40_jupyter.js,
 * `broadcast`): its return says nothing about the wire. One task there publishes the queue in order,
 * each message written to every subscriber before the next is taken (cli/js/jupyter_kernel.js,
 * `iopubDrainer`, `PubSocket.send`). The cell's end is handled by another task: `execute_reply`, then
 * `status: idle`, without waiting for that queue (`handleExecute`); even the cell's own `execute_result`
 * goes through the queue. A frontend that closes the cell at idle (JupyterLab, nbconvert, papermill)
 * drops what comes later: under load, plotly.js parts 29–37 of 37 in CI. No pause long enough can be
 * known in advance; what can be known is when a message is out: {@link WireWatch} watches the kernel's
 * iopub as a subscriber of its own, and the sender holds the cell until a probe sent after each message
 * has come through, so every message of the cell is on the frontend's connection before its idle.
 * Printed text has the same race, and more: the kernel tags it with the request current when its stdio
 * task sends it, possibly the next cell's (scripts/jupyter-execute.py fences each cell to give it back).
 */
import { denoProcessView, kernelIopub, WireWatch, type DenoApi } from "./deno-wire";
import type { MimeBundle } from "./tslab";

/** What of `Deno.jupyter` the display path uses (`broadcast` since Deno 1.37; `display` alone is the fallback). */
export interface DenoJupyter {
  display(bundle: MimeBundle, options: { raw: true; display_id?: string; update?: boolean }): Promise<void>;
  broadcast?(msgType: string, content: Record<string, unknown>): Promise<void>;
}

/** Where the wire cannot be watched: messages this big (characters of their bundle) are followed by a pause proportional to their size. */
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
 * The pause (ms) after a message of `chars` characters where the wire cannot be watched: none below
 * {@link PACE_FROM_CHARS}. The cell's code is blocked meanwhile (`Atomics.wait`), and the frontend reads
 * what the kernel wrote, so the next message usually finds room on the socket and is on the wire before
 * the cell can end (a loaded machine can outrun it).
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

/** How long a send waits for its message to be on the kernel's wire before it says so and goes on, ms. */
export const WIRE_TIMEOUT_MS = 60_000;

/** What holds the cell until a probe sent after a message is on the wire ({@link WireWatch}). */
export interface WireWait {
  waitFor(probe: (displayId: string) => void, timeoutMs: number): string | undefined;
}

let kernelWatchOrWhy: WireWatch | string | undefined;
/**
 * The watcher of this kernel's iopub (one per process, started at the first send), or why there is none.
 * `deno` is injectable for tests.
 */
export function kernelWatch(deno: unknown = (globalThis as { Deno?: unknown }).Deno): WireWait | string {
  if (kernelWatchOrWhy === undefined) {
    if (typeof deno !== "object" || deno === null) kernelWatchOrWhy = "this is not Deno";
    else {
      const address = kernelIopub(denoProcessView(deno as DenoApi));
      kernelWatchOrWhy = typeof address === "string" ? address : WireWatch.start(address);
    }
  }
  return kernelWatchOrWhy;
}

/** A watch that failed for good (its connection refused or closed): later sends pace by time at once. */
function dropKernelWatch(why: string): void {
  if (typeof kernelWatchOrWhy === "object") kernelWatchOrWhy = why;
}

let warned = false;
/** Says once per process that displays are paced by time, and why. */
function warnOnce(why: string): void {
  if (warned) return;
  warned = true;
  console.error(
    `risk-portal-lab: cannot tell when Deno's kernel has sent a display (${why}); pausing after each instead, ` +
      "which a loaded machine can outrun: a display may then be missing from its cell",
  );
}

/** What {@link DenoSender} uses besides `Deno.jupyter`; each injectable for tests. */
export interface SenderOptions {
  /** The kernel's wire watch, or why there is none (default: {@link kernelWatch}). */
  watch?: () => WireWait | string;
  /** Blocks this thread for `ms` (the fallback when there is no watch). */
  pauseMs?: (ms: number) => void;
  /** Says why displays are paced by time (default: once per process on stderr). */
  warn?: (why: string) => void;
}

/**
 * Sends displays, each at once (Deno's kernel takes the cell a message belongs to when its send starts,
 * so a send held back behind another could land in the next cell), in call order, and holds the cell
 * until the message is on the kernel's wire: it sends a probe after it (an `update_display_data` of a
 * display id no frontend has, which frontends ignore) and blocks until the kernel's iopub has published
 * it ({@link WireWatch} says why that is enough). Where that cannot be watched (no `broadcast`, no
 * connection file, …) it says so once and pauses after each message instead ({@link pauseAfter}). A
 * send that fails is reported on stderr, never thrown.
 */
export class DenoSender {
  readonly jupyter: DenoJupyter;
  readonly #watch: () => WireWait | string;
  readonly #pauseMs: (ms: number) => void;
  readonly #warn: (why: string) => void;

  constructor(jupyter: DenoJupyter, options: SenderOptions = {}) {
    this.jupyter = jupyter;
    this.#watch = options.watch ?? kernelWatch;
    this.#pauseMs = options.pauseMs ?? pause;
    this.#warn = options.warn ?? warnOnce;
  }

  send(bundle: MimeBundle, options: { displayId?: string; update?: boolean } = {}): Promise<void> {
    let sent: Promise<void>;
    try {
      sent = Promise.resolve(this.start(bundle, options));
    } catch (error) {
      sent = Promise.reject(error);
    }
    const why = this.#onWire();
    if (why !== undefined) {
      this.#warn(why);
      this.#pauseMs(pauseAfter(bundleChars(bundle), options.update === true));
    }
    return sent.catch((error: unknown) => {
      console.error(
        `risk-portal-lab: Deno's kernel did not send a display (${error instanceof Error ? error.message : String(error)})`,
      );
    });
  }

  /** Blocks until what was sent is on the wire; undefined then, else why that is not known. */
  #onWire(): string | undefined {
    const { broadcast } = this.jupyter;
    if (typeof broadcast !== "function") return "this Deno has no Deno.jupyter.broadcast";
    const watch = this.#watch();
    if (typeof watch === "string") return `its iopub cannot be watched: ${watch}`;
    try {
      const why = watch.waitFor(
        (displayId) =>
          void broadcast.call(this.jupyter, "update_display_data", {
            data: {},
            metadata: {},
            transient: { display_id: displayId },
          }),
        WIRE_TIMEOUT_MS,
      );
      if (why !== undefined && !why.includes("not on the wire")) dropKernelWatch(why);
      return why;
    } catch (error) {
      return `a probe could not be sent (${error instanceof Error ? error.message : String(error)})`;
    }
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
