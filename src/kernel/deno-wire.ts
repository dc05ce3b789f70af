/**
 * Watching Deno's kernel's iopub wire, so that Deno's display sender (`DenoSender`) knows when what a cell
 * sent is on it, and can hold the cell until then.
 *
 * Why this is sound (Deno 2.9: cli/ops/jupyter.rs, cli/js/jupyter_kernel.js): `Deno.jupyter.broadcast`
 * only queues a message on a channel to the kernel's thread; one task there takes the messages in order
 * and publishes each, awaiting its write to every subscriber connection in the order they connected,
 * before it takes the next. The cell's `status: idle` is written by another task once the cell's code
 * has returned, without waiting for that queue. So: a subscriber of ours, connected after the
 * frontend, that sees message N on its connection knows that every message queued before N is already
 * written to the frontend's connection; while the cell is held until then, its idle comes after them.
 *
 * The subscriber runs in a worker (its own thread and event loop), because the cell's thread is blocked
 * meanwhile (`Atomics.wait`); they share a few integers. The kernel's address is in its connection file,
 * named on its command line (`--conn`); only the iopub address is read from it.
 */

/** Where the kernel publishes: its iopub socket. */
export interface IopubAddress {
  ip: string;
  port: number;
}

/** What the kernel process's command line and connection file are read with (injectable for tests). */
export interface ProcessView {
  /** The kernel process's arguments, or undefined when they cannot be read. */
  argv(): string[] | undefined;
  readText(file: string): string;
}

/** The arguments of this process (Linux's /proc, else `ps`), read with Deno's synchronous APIs. */
export function denoProcessView(deno: DenoApi): ProcessView {
  return {
    argv() {
      try {
        return deno.readTextFileSync("/proc/self/cmdline").split("\0").filter(Boolean);
      } catch {
        // not Linux: ps prints the command line (split at spaces: a path with spaces is not found)
      }
      try {
        const out = new deno.Command("ps", { args: ["-ww", "-o", "args=", "-p", String(deno.pid)] }).outputSync();
        return out.success ? new TextDecoder().decode(out.stdout).trim().split(/\s+/) : undefined;
      } catch {
        return undefined;
      }
    },
    readText: (file) => deno.readTextFileSync(file),
  };
}

/** The iopub address of the kernel this process is, or a sentence saying why it is not known. */
export function kernelIopub(view: ProcessView): IopubAddress | string {
  const argv = view.argv();
  if (!argv) return "its command line cannot be read";
  const at = argv.indexOf("--conn");
  const file = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith("--conn="))?.slice("--conn=".length);
  if (!file) return "its command line names no connection file (--conn)";
  let info: { ip?: unknown; iopub_port?: unknown; transport?: unknown };
  try {
    info = JSON.parse(view.readText(file)) as typeof info;
  } catch (error) {
    // Not a JSON error's message: it quotes the text near the fault, which may be the kernel's key.
    const why = error instanceof SyntaxError ? "not JSON" : error instanceof Error ? error.message : String(error);
    return `its connection file ${file} cannot be read (${why})`;
  }
  if (info.transport !== undefined && info.transport !== "tcp")
    return `its connection file ${file} says transport ${JSON.stringify(info.transport)}, not tcp`;
  if (typeof info.ip !== "string" || !Number.isInteger(info.iopub_port))
    return `its connection file ${file} has no ip and iopub_port`;
  return { ip: info.ip, port: info.iopub_port as number };
}

/** The few of Deno's APIs this file uses (Deno is not in this package's types). */
export interface DenoApi {
  pid: number;
  readTextFileSync(path: string): string;
  Command: new (cmd: string, options: { args: string[] }) => { outputSync(): { success: boolean; stdout: Uint8Array } };
}

/** Index of the shared integers: the highest probe number seen, and the watcher's state. */
const SEEN = 0;
const STATE = 1;
/** Watcher states: connecting; subscribed (a message came); could not connect; connection lost. */
const CONNECTING = 0;
const FAILED = -1;
const CLOSED = -2;

/**
 * The watcher's code, run in a worker: connects to the iopub address as a ZMTP 3 SUB socket, reads every
 * message, and when one is a probe (an `update_display_data` whose display id is `prefix` + a number)
 * stores the highest number seen in cell 0; cell 1 is its state (1 once a message came, -1 when the
 * connection failed, -2 when it closed). Plain JavaScript in a string: a bundler's helpers (`__name`)
 * would not exist in the worker, so the source is not taken from a compiled function.
 */
const WATCHER_SOURCE = String.raw`
const enc = new TextEncoder(), dec = new TextDecoder();
self.onmessage = (event) => {
  const { ip, port, prefix } = event.data;
  const cells = new Int32Array(event.data.cells);
  const set = (i, v) => { Atomics.store(cells, i, v); Atomics.notify(cells, 0); };
  let buf = new Uint8Array(1 << 20), start = 0, end = 0, conn;
  const fill = async (n) => {
    while (end - start < n) {
      if (buf.length - start < n + 65536) {
        const next = new Uint8Array(Math.max(buf.length, 2 * (n + 65536)));
        next.set(buf.subarray(start, end));
        buf = next; end -= start; start = 0;
      }
      const got = await conn.read(buf.subarray(end));
      if (got === null) throw new Error("closed");
      end += got;
    }
  };
  const writeAll = async (bytes) => {
    for (let off = 0; off < bytes.length; ) off += await conn.write(bytes.subarray(off));
  };
  const frame = async () => {
    await fill(2);
    const flags = buf[start];
    let size = buf[start + 1], head = 2;
    if (flags & 2) {
      await fill(9);
      size = new DataView(buf.buffer, buf.byteOffset + start + 1, 8).getUint32(4);
      head = 9;
    }
    await fill(head + size);
    const body = buf.slice(start + head, start + head + size);
    start += head + size;
    return { more: (flags & 1) !== 0, command: (flags & 4) !== 0, body };
  };
  const probeNumber = (parts) => {
    const d = parts.findIndex((p) => p.length === 9 && dec.decode(p) === "<IDS|MSG>");
    const header = parts[d + 2], content = parts[d + 5];
    if (d < 0 || !header || !content || content.length > 4096) return -1;
    if (!dec.decode(header).includes('"update_display_data"')) return -1;
    const id = JSON.parse(dec.decode(content)).transient?.display_id;
    return typeof id === "string" && id.startsWith(prefix) ? Number(id.slice(prefix.length)) : -1;
  };
  const bytes = (...xs) => new Uint8Array(xs.flatMap((x) => (typeof x === "string" ? [...enc.encode(x)] : [x])));
  (async () => {
    try {
      conn = await Deno.connect({ hostname: ip, port });
    } catch {
      return set(1, -1);
    }
    try {
      const greeting = new Uint8Array(64);
      greeting.set([0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 3, 0]);
      greeting.set(enc.encode("NULL"), 12);
      await writeAll(greeting);
      await fill(64);
      const minor = buf[start + 11];
      start += 64;
      const ready = bytes(5, "READY", 11, "Socket-Type", 0, 0, 0, 3, "SUB");
      await writeAll(bytes(4, ready.length, ...ready));
      while (!(await frame()).command);
      // ZMTP 3.0 subscribes with a message whose first byte is 1; 3.1 with a SUBSCRIBE command.
      await writeAll(minor >= 1 ? bytes(4, 10, 9, "SUBSCRIBE") : bytes(0, 1, 1));
      for (;;) {
        const parts = [];
        for (let f = await frame(); ; f = await frame()) {
          if (!f.command) parts.push(f.body);
          if (!f.more) break;
        }
        const n = probeNumber(parts);
        if (n > Atomics.load(cells, 0)) Atomics.store(cells, 0, n);
        set(1, 1);
      }
    } catch {
      set(1, -2);
    }
  })();
};
`;

/** What the worker global of Deno looks like here. */
type WorkerCtor = new (url: string, options: { type: "module" }) => { postMessage(m: unknown): void };

/**
 * A subscriber to the kernel's iopub in a worker, and the integers it shares with this thread. Probes
 * are numbered; {@link WireWatch.waitFor} blocks this thread until one is seen on the wire.
 */
export class WireWatch {
  /** Probe display ids: this prefix and the probe's number (unique per kernel process). */
  readonly prefix = `rpl-wire-${Math.random().toString(36).slice(2)}-`;
  #cells = new Int32Array(new SharedArrayBuffer(8));
  #next = 0;

  /** Starts the watcher on `address` (a worker of `workerCtor`); a sentence saying why not if it cannot. */
  static start(
    address: IopubAddress,
    workerCtor: unknown = (globalThis as { Worker?: unknown }).Worker,
  ): WireWatch | string {
    if (typeof workerCtor !== "function") return "this Deno has no Worker";
    const watch = new WireWatch();
    try {
      const source = new Blob([WATCHER_SOURCE], { type: "text/javascript" });
      const worker = new (workerCtor as WorkerCtor)(URL.createObjectURL(source), { type: "module" });
      worker.postMessage({ ...address, cells: watch.#cells.buffer, prefix: watch.prefix });
    } catch (error) {
      return `a worker could not be started (${error instanceof Error ? error.message : String(error)})`;
    }
    return watch;
  }

  /**
   * Sends a probe (through `probe`, given its display id) and blocks until the watcher has seen it on the
   * wire, so that every message sent before it is written to the frontend. Until the watcher's first
   * probe arrives (its subscription may start after a probe went out), a new probe goes every
   * `reprobeMs`. Returns undefined once seen, else a sentence saying what happened instead (the
   * connection failed or closed, or `timeoutMs` passed).
   */
  waitFor(probe: (displayId: string) => void, timeoutMs: number, reprobeMs = 25): string | undefined {
    const cells = this.#cells;
    const started = Date.now();
    let target = ++this.#next;
    probe(this.prefix + target);
    let probedAt = started;
    for (;;) {
      const seen = Atomics.load(cells, SEEN);
      if (seen >= target) return undefined;
      const state = Atomics.load(cells, STATE);
      if (state === FAILED) return "its iopub socket refused the connection";
      if (state === CLOSED) return "its iopub socket closed the connection";
      const now = Date.now();
      if (now - started >= timeoutMs) return `a display was not on the wire after ${Math.round(timeoutMs / 1000)} s`;
      if (seen === 0 && now - probedAt >= reprobeMs) {
        target = ++this.#next;
        probe(this.prefix + target);
        probedAt = now;
      }
      Atomics.wait(cells, SEEN, seen, Math.min(reprobeMs, timeoutMs - (now - started)));
    }
  }

  /** The watcher's state, for tests: connecting, subscribed, failed or closed. */
  get state(): "connecting" | "subscribed" | "failed" | "closed" {
    const s = Atomics.load(this.#cells, STATE);
    return s === CONNECTING ? "connecting" : s === FAILED ? "failed" : s === CLOSED ? "closed" : "subscribed";
  }
}
