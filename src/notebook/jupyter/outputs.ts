/**
 * Routes a kernel's iopub messages to the cells whose requests they answer (by parent msg_id), as
 * nbclient does, but without ever closing a cell: an output that arrives after the cell's idle (Deno's
 * kernel sends idle before some outputs) still lands in its cell. update_display_data replaces the
 * output with the same display_id, wherever it is; clear_output clears the cell (with wait, at its next
 * output).
 *
 * And fences: Deno's kernel tags its outputs (printed text, displays, a cell's result) with the request
 * current when its output task sends them, so an output a cell made may come tagged as a later request's.
 * After each cell the runner sends a fence, a request that prints a unique marker; the kernel's output
 * queue is first in, first out, so any output tagged with the fence's request before the marker is the
 * cell's and goes back to it.
 */
import type { Cell, Output } from "../ipynb";
import { CellOutputCap } from "../run-shared";
import type { JupyterKernel } from "./kernel";
import type { Message } from "./wire";

const OUTPUT_TYPES = new Set([
  "stream",
  "display_data",
  "update_display_data",
  "execute_result",
  "error",
  "clear_output",
]);

/** One code cell's outputs as they arrive. */
export interface CellState {
  cell: Cell;
  outputs: Output[];
  executionCount: number;
  /** Resolves at the cell's `status: idle`. */
  idle: Promise<void>;
  /** Set once the runner has the reply and the fence: outputs after that count as late. */
  done: boolean;
  clearOnNext: boolean;
  resolveIdle: () => void;
  /** The cell's budget of stored output (a fresh one when the cell clears its output). */
  cap: CellOutputCap;
  /** Says what the cap cut: pushed at the first cut, its text filled in by `finish()`. */
  note?: Output & { output_type: "stream" };
}

interface Fence {
  state: CellState;
  marker: string;
  found: () => void;
  /** Its marker has been printed. */
  passed?: boolean;
}

export class KernelOutputs {
  /** Outputs that arrived after the cell was done, and outputs given back by a fence. */
  late = 0;
  reattributed = 0;
  lastMessageAt = performance.now();
  #cells = new Map<string, CellState>();
  #fences = new Map<string, Fence>();
  #displays = new Map<string, Output[]>();
  #kernel: JupyterKernel;
  #listener = (m: Message) => this.#on(m);

  constructor(kernel: JupyterKernel) {
    this.#kernel = kernel;
    kernel.on("iopub", this.#listener);
  }

  detach(): void {
    this.#kernel.off("iopub", this.#listener);
  }

  /** A cell about to run: its outputs start empty and are the cell's own array (late outputs land there too). */
  begin(cell: Cell, executionCount: number): CellState {
    let resolveIdle!: () => void;
    const idle = new Promise<void>((r) => (resolveIdle = r));
    const state: CellState = {
      cell,
      outputs: [],
      executionCount,
      idle,
      done: false,
      clearOnNext: false,
      resolveIdle,
      cap: new CellOutputCap(),
    };
    cell.outputs = state.outputs;
    cell.execution_count = executionCount;
    return state;
  }

  track(msgId: string, state: CellState): void {
    this.#cells.set(msgId, state);
  }

  /** Fills in the notes of the cells whose outputs were cut. */
  finish(): void {
    for (const state of this.#cells.values()) if (state.note) state.note.text = state.cap.note() ?? "";
  }

  /** Resolves when the fence request `msgId` has printed `marker`. */
  fence(msgId: string, state: CellState, marker: string): Promise<void> {
    return new Promise<void>((found) => this.#fences.set(msgId, { state, marker, found }));
  }

  /** Resolves once no iopub message has arrived for `quietMs` (at most `maxMs` in all). */
  async quiet(quietMs: number, maxMs = 10_000): Promise<void> {
    const until = performance.now() + maxMs;
    for (;;) {
      const wait = this.lastMessageAt + quietMs - performance.now();
      if (wait <= 0 || performance.now() > until) return;
      await new Promise((r) => setTimeout(r, Math.min(wait, until - performance.now()) + 1));
    }
  }

  #on(m: Message): void {
    this.lastMessageAt = performance.now();
    const parent = m.parent_header.msg_id ?? "";
    const fence = this.#fences.get(parent);
    if (fence) return this.#onFence(fence, m);
    const state = this.#cells.get(parent);
    if (!state) return;
    if (m.header.msg_type === "status" && m.content.execution_state === "idle") state.resolveIdle();
    if (!OUTPUT_TYPES.has(m.header.msg_type)) return;
    if (state.done) this.late++;
    this.#output(state, m.header.msg_type, m.content);
  }

  /**
   * A message tagged with a fence's request: before the marker, any output is the fenced cell's (Deno's
   * kernel drains printed text, displays and the cell's result from one queue, tagging each with the
   * request current when it is sent); the fence's busy, input and idle, and all after its marker, are not
   * the notebook's.
   */
  #onFence(fence: Fence, m: Message): void {
    const type = m.header.msg_type;
    if (fence.passed || !OUTPUT_TYPES.has(type)) return;
    if (type !== "stream") {
      this.reattributed++;
      return this.#output(fence.state, type, m.content);
    }
    const text = String(m.content.text ?? "");
    const at = text.indexOf(fence.marker);
    const before = at < 0 ? text : text.slice(0, at);
    if (before) {
      this.reattributed++;
      this.#output(fence.state, "stream", { ...m.content, text: before });
    }
    if (at < 0) return;
    fence.passed = true;
    fence.found();
  }

  #output(state: CellState, type: string, content: Record<string, unknown>): void {
    if (type === "clear_output") {
      if (content.wait) state.clearOnNext = true;
      else clear(state);
      return;
    }
    if (type === "update_display_data") return this.#update(content);
    // A result with an empty bundle (a display handle's: its output is already there) draws nothing.
    if (type === "execute_result" && Object.keys((content.data as object | undefined) ?? {}).length === 0) return;
    // A display under an id shown before replaces those outputs too, and is added (as nbclient does).
    if (type === "display_data") this.#update(content);
    if (state.clearOnNext) {
      clear(state);
      state.clearOnNext = false;
    }
    const output = toOutput(type, content, state.executionCount);
    if (output.output_type === "stream") {
      const text = state.cap.text(output.text);
      if (text) this.#stream(state, output.name, text);
      return this.#cut(state);
    }
    if (output.output_type !== "error" && !state.cap.display(output.data)) return this.#cut(state);
    state.outputs.push(output);
    const displayId = (content.transient as { display_id?: unknown } | undefined)?.display_id;
    if (output.output_type === "display_data" && typeof displayId === "string")
      this.#displays.set(displayId, [...(this.#displays.get(displayId) ?? []), output]);
  }

  /** After the cap's first cut, a note (before the cell's error, as printed text goes). */
  #cut(state: CellState): void {
    if (state.note || !state.cap.cut) return;
    state.note = { output_type: "stream", name: "stderr", text: "" };
    const errorAt = state.outputs.findIndex((o) => o.output_type === "error");
    state.outputs.splice(errorAt < 0 ? state.outputs.length : errorAt, 0, state.note);
  }

  /**
   * Printed text goes after the cell's earlier text of the same stream, and before the cell's error
   * when it has one: the error ended the cell, so what it printed came first (Deno's kernel may publish
   * the error before the text, which its stdio task sends later).
   */
  #stream(state: CellState, name: "stdout" | "stderr", text: string): void {
    const errorAt = state.outputs.findIndex((o) => o.output_type === "error");
    const at = errorAt < 0 ? state.outputs.length : errorAt;
    const previous = state.outputs[at - 1];
    if (previous?.output_type === "stream" && previous.name === name) previous.text += text;
    else state.outputs.splice(at, 0, { output_type: "stream", name, text });
  }

  /** update_display_data: every output shown with that display_id takes the new data (none is added), within its cell's cap. */
  #update(content: Record<string, unknown>): void {
    const displayId = (content.transient as { display_id?: unknown } | undefined)?.display_id;
    for (const o of typeof displayId === "string" ? (this.#displays.get(displayId) ?? []) : []) {
      if (o.output_type !== "display_data") continue;
      const state = [...this.#cells.values()].find((s) => s.outputs.includes(o));
      if (state && !state.cap.display(content.data ?? {}, o.data)) {
        this.#cut(state);
        continue;
      }
      o.data = (content.data as Record<string, unknown>) ?? {};
      o.metadata = (content.metadata as Record<string, unknown>) ?? {};
    }
  }
}

/** A cell's outputs cleared: its cap starts again (what is stored is bounded all the same). */
function clear(state: CellState): void {
  state.outputs.length = 0;
  state.cap = new CellOutputCap();
  state.note = undefined;
}

/** An iopub message's content as the nbformat output it becomes. */
function toOutput(type: string, content: Record<string, unknown>, executionCount: number): Output {
  const data = (content.data as Record<string, unknown>) ?? {};
  const metadata = (content.metadata as Record<string, unknown>) ?? {};
  switch (type) {
    case "stream":
      return {
        output_type: "stream",
        name: content.name === "stderr" ? "stderr" : "stdout",
        text: String(content.text ?? ""),
      };
    case "execute_result":
      return { output_type: "execute_result", data, metadata, execution_count: executionCount };
    case "error":
      return {
        output_type: "error",
        ename: String(content.ename),
        evalue: String(content.evalue),
        traceback: (content.traceback as string[]) ?? [],
      };
    default:
      return { output_type: "display_data", data, metadata };
  }
}
