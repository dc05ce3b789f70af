/**
 * The routing of a kernel's iopub messages to cells (src/notebook/jupyter/outputs.ts), fed the message
 * sequences Deno's kernel 2.9 sends. Its REPL thread puts every output (printed text, displays, the
 * cell's result) on a channel that another task drains, tagging each with the request current when it
 * is drained (cli/js/jupyter_kernel.js: `publishIopub` uses `currentParentHeader`). A cell's result put
 * on the channel just before its execute_reply may so be published after the next request began: the
 * fence's. The real kernel does this now and then (CI, 768b5b5: result-1's `41` was lost); here it is
 * made to happen every time.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { Cell } from "../../src/notebook/ipynb";
import type { JupyterKernel } from "../../src/notebook/jupyter/kernel";
import { KernelOutputs } from "../../src/notebook/jupyter/outputs";
import type { Message } from "../../src/notebook/jupyter/wire";

function message(type: string, parent: string, content: Record<string, unknown>): Message {
  const header = { msg_id: `${type}-${parent}`, msg_type: type, session: "s", username: "u", date: "", version: "5.3" };
  return { header, parent_header: { msg_id: parent }, metadata: {}, content };
}

/** A cell that printed `line 1` and was answered; its fence sent, the book routing what comes next. */
function cellThenFence() {
  const kernel = new EventEmitter();
  const book = new KernelOutputs(kernel as unknown as JupyterKernel);
  const cell: Cell = { cell_type: "code", source: "console.log('line 1');\n40 + 1", metadata: {}, outputs: [] };
  const state = book.begin(cell, 7);
  book.track("cell", state);
  const send = (type: string, parent: string, content: Record<string, unknown> = {}) =>
    kernel.emit("iopub", message(type, parent, content));
  send("status", "cell", { execution_state: "busy" });
  send("execute_input", "cell", { code: cell.source });
  send("stream", "cell", { name: "stdout", text: "line 1\n" });
  send("status", "cell", { execution_state: "idle" });
  let fenced = false;
  void book.fence("fence", state, "--marker--").then(() => (fenced = true));
  send("status", "fence", { execution_state: "busy" });
  send("execute_input", "fence", { code: "console.log('--marker--')" });
  return { book, state, send, fenced: () => fenced };
}

const result41 = { data: { "text/plain": "41" }, metadata: {}, execution_count: 7 };

describe("KernelOutputs: outputs Deno's kernel tags with the fence's request", () => {
  it("gives the cell its result published under the fence, before the marker", async () => {
    const { book, state, send, fenced } = cellThenFence();
    send("execute_result", "fence", result41);
    send("stream", "fence", { name: "stdout", text: "--marker--\n" });
    send("status", "fence", { execution_state: "idle" });
    await Promise.resolve();
    expect(fenced()).toBe(true);
    expect(state.outputs).toEqual([
      { output_type: "stream", name: "stdout", text: "line 1\n" },
      { output_type: "execute_result", data: { "text/plain": "41" }, metadata: {}, execution_count: 7 },
    ]);
    expect(book.reattributed).toBe(1);
  });

  it("gives the cell its displays and errors published under the fence, in the order they came", () => {
    const { state, send } = cellThenFence();
    send("display_data", "fence", { data: { "text/plain": "a chart" }, metadata: {}, transient: {} });
    send("stream", "fence", { name: "stdout", text: "after the chart\n" });
    send("error", "fence", { ename: "TypeError", evalue: "x", traceback: ["TypeError: x"] });
    send("stream", "fence", { name: "stdout", text: "--marker--\n" });
    expect(state.outputs.map((o) => o.output_type)).toEqual(["stream", "display_data", "stream", "error"]);
    expect(state.outputs[2]).toEqual({ output_type: "stream", name: "stdout", text: "after the chart\n" });
  });

  it("keeps nothing the fence sends after its marker, and nothing of the fence's own", () => {
    const { state, send } = cellThenFence();
    send("stream", "fence", { name: "stdout", text: "line 2\n--marker--\n" });
    send("execute_result", "fence", { data: { "text/plain": "undefined" }, metadata: {}, execution_count: 7 });
    send("status", "fence", { execution_state: "idle" });
    expect(state.outputs).toEqual([{ output_type: "stream", name: "stdout", text: "line 1\nline 2\n" }]);
  });
});

describe("KernelOutputs: displays under an id, across cells, as nbclient stores them", () => {
  /** Two cells, each begun and tracked, and a sender of their iopub messages. */
  function twoCells() {
    const kernel = new EventEmitter();
    const book = new KernelOutputs(kernel as unknown as JupyterKernel);
    const cell = (n: number): Cell => ({ cell_type: "code", source: `cell ${n}`, metadata: {}, outputs: [] });
    const first = book.begin(cell(1), 1);
    book.track("one", first);
    const second = book.begin(cell(2), 2);
    book.track("two", second);
    const send = (type: string, parent: string, content: Record<string, unknown>) =>
      kernel.emit("iopub", message(type, parent, content));
    return { first, second, send };
  }
  const shown = (text: string, update = false) => ({
    data: { "text/plain": text },
    metadata: { update },
    transient: { display_id: "d1" },
  });
  const display = (text: string, update = false) => ({
    output_type: "display_data",
    data: { "text/plain": text },
    metadata: { update },
  });

  it("an update from a later cell replaces the earlier cell's output and adds none", () => {
    const { first, second, send } = twoCells();
    send("display_data", "one", shown("step 1"));
    send("update_display_data", "two", shown("step 2", true));
    expect(first.outputs).toEqual([display("step 2", true)]);
    expect(second.outputs).toEqual([]);
  });

  it("a new display under a shown id replaces the earlier output too, and is added", () => {
    const { first, second, send } = twoCells();
    send("display_data", "one", shown("step 1"));
    send("display_data", "two", shown("again"));
    expect(first.outputs).toEqual([display("again")]);
    expect(second.outputs).toEqual([display("again")]);
  });

  it("an update of an id nothing showed is dropped; a result with an empty bundle (a display handle's) is not kept", () => {
    const { second, send } = twoCells();
    send("update_display_data", "two", shown("nowhere", true));
    send("execute_result", "two", { data: {}, metadata: {}, execution_count: 2, transient: {} });
    expect(second.outputs).toEqual([]);
  });
});
