/**
 * A Jupyter kernel started and spoken to directly, without jupyter_client: a connection file (tcp on
 * 127.0.0.1, free ports, a random key, hmac-sha256) in a private temporary directory, the kernel process
 * started with it, DEALER sockets on shell and control and a SUB socket on iopub (zmtp.ts), messages
 * signed and checked (wire.ts). Replies are matched to requests by the parent msg_id; iopub messages are
 * emitted as `iopub` for the caller to route.
 *
 * The kernel is killed and its connection file removed on every way out: `shutdown()`, the kernel
 * exiting, this process exiting, SIGINT and SIGTERM (then the signal is raised again).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { decodeMessage, encodeMessage, newMessage, type Header, type Message } from "./wire";
import { ZmtpSocket } from "./zmtp";

export interface ConnectionInfo {
  transport: "tcp";
  ip: string;
  shell_port: number;
  iopub_port: number;
  stdin_port: number;
  control_port: number;
  hb_port: number;
  key: string;
  signature_scheme: "hmac-sha256";
  kernel_name?: string;
}

export interface KernelStartOptions {
  /** The kernel's command line; `{connection_file}` is replaced by the connection file's path (as in a kernelspec). */
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** How long the kernel may take to answer its first kernel_info_request, ms. Default 60 s. */
  startTimeoutMs?: number;
  /** The kernel's name, for messages (`Deno's kernel`). */
  name?: string;
}

/** Ports nobody listens on now: each bound on 127.0.0.1 port 0 at the same time, then released. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer();
          s.once("error", reject);
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

const CONNECTION_FILE = "connection.json";

/** Writes a connection file (readable by this user only) in a new temporary directory. */
export async function writeConnectionFile(): Promise<{ file: string; dir: string; info: ConnectionInfo }> {
  const [shell, iopub, stdin, control, hb] = await freePorts(5);
  const info: ConnectionInfo = {
    transport: "tcp",
    ip: "127.0.0.1",
    shell_port: shell!,
    iopub_port: iopub!,
    stdin_port: stdin!,
    control_port: control!,
    hb_port: hb!,
    key: randomBytes(32).toString("hex"),
    signature_scheme: "hmac-sha256",
  };
  const dir = mkdtempSync(path.join(tmpdir(), "rpl-kernel-"));
  const file = path.join(dir, CONNECTION_FILE);
  writeFileSync(file, JSON.stringify(info, null, 1), { mode: 0o600 });
  return { file, dir, info };
}

// eslint-disable-next-line no-control-regex -- the escape that starts an ANSI colour code
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** Text without ANSI colour codes (Deno colours its errors and warnings). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

const live = new Set<JupyterKernel>();

function killAllNow(): void {
  for (const k of live) k.killNow();
}

function onSignal(signal: NodeJS.Signals): void {
  killAllNow();
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  // Whatever else listens decides; with nobody else, the signal ends the process as it would have.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function track(kernel: JupyterKernel): void {
  if (live.size === 0) {
    process.on("exit", killAllNow);
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }
  live.add(kernel);
}

function untrack(kernel: JupyterKernel): void {
  live.delete(kernel);
  if (live.size > 0) return;
  process.off("exit", killAllNow);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
}

type Channel = "shell" | "control";

/** A started kernel. Emits `iopub` (Message) for every message published on iopub. */
/** How many times a kernel whose port was taken before it bound it is started (fresh ports each time). */
const START_ATTEMPTS = 3;

export class JupyterKernel extends EventEmitter {
  readonly session = randomUUID();
  readonly name: string;
  /** The connection file (removed when the kernel is gone). */
  readonly connectionFile: string;
  /** Rejects (never resolves) when the kernel process exits before `shutdown()`. */
  readonly died: Promise<never>;
  #child: ChildProcess;
  #dir: string;
  #key: string;
  #sockets: Partial<Record<Channel | "iopub", ZmtpSocket>> = {};
  #waiting = new Map<string, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  #stderr = "";
  #exited = false;
  #stopping = false;

  private constructor(child: ChildProcess, dir: string, key: string, name: string) {
    super();
    this.connectionFile = path.join(dir, CONNECTION_FILE);
    this.#child = child;
    this.#dir = dir;
    this.#key = key;
    this.name = name;
    track(this);
    child.stderr?.on("data", (c: Buffer) => (this.#stderr = (this.#stderr + c.toString("utf8")).slice(-4000)));
    child.stdout?.resume();
    this.died = new Promise<never>((_, reject) => {
      child.once("exit", (code, signal) => {
        this.#exited = true;
        const error = new Error(
          `${name} exited (${signal ?? `code ${code}`})${this.stderrTail() ? `: ${this.stderrTail()}` : ""}`,
        );
        for (const w of this.#waiting.values()) w.reject(error);
        this.#waiting.clear();
        this.#cleanUp();
        if (!this.#stopping) reject(error);
      });
      child.once("error", (error) => {
        this.#exited = true;
        this.#cleanUp();
        reject(new Error(`${name} could not be started (${this.argv0}): ${error.message}`));
      });
    });
    this.died.catch(() => undefined);
  }

  private get argv0(): string {
    return this.#child.spawnfile;
  }

  /** The kernel's stderr, last lines, without Deno's "unstable" warning. */
  stderrTail(): string {
    return stripAnsi(this.#stderr)
      .split("\n")
      .filter((l) => l.trim() && !/is unstable/.test(l))
      .slice(-10)
      .join("\n");
  }

  /**
   * Starts the kernel and resolves once it answers on shell and publishes on iopub. The ports are free when
   * chosen, but another process may take one before the kernel binds it: a kernel that exits saying its
   * address is in use is started again on fresh ports (at most {@link START_ATTEMPTS} times in all).
   */
  static async start(options: KernelStartOptions): Promise<JupyterKernel> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await JupyterKernel.startOnce(options);
      } catch (error) {
        const inUse = error instanceof Error && /AddrInUse|Address already in use|EADDRINUSE/.test(error.message);
        if (!inUse || attempt >= START_ATTEMPTS) {
          if (inUse && error instanceof Error)
            error.message += ` (started ${attempt} times, each on ports that were free when chosen)`;
          throw error;
        }
      }
    }
  }

  private static async startOnce(options: KernelStartOptions): Promise<JupyterKernel> {
    const { file, dir, info } = await writeConnectionFile();
    const [command, ...args] = options.argv.map((a) => a.replace("{connection_file}", file));
    const child = spawn(command!, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    const kernel = new JupyterKernel(child, dir, info.key, options.name ?? path.basename(command!));
    try {
      await Promise.race([kernel.#connect(info), kernel.died]);
      await Promise.race([kernel.#waitReady(options.startTimeoutMs ?? 60_000), kernel.died]);
    } catch (error) {
      kernel.killNow();
      throw error;
    }
    return kernel;
  }

  async #connect(info: ConnectionInfo): Promise<void> {
    const at = (port: number, type: "DEALER" | "SUB") =>
      ZmtpSocket.connect({ host: info.ip, port, type, connectTimeoutMs: 30_000 });
    const [shell, control, iopub] = await Promise.all([
      at(info.shell_port, "DEALER"),
      at(info.control_port, "DEALER"),
      at(info.iopub_port, "SUB"),
    ]);
    this.#sockets = { shell, control, iopub };
    for (const s of [shell, control, iopub]) s.on("error", () => undefined);
    shell.on("message", (frames: Buffer[]) => this.#onReply(frames));
    control.on("message", (frames: Buffer[]) => this.#onReply(frames));
    iopub.on("message", (frames: Buffer[]) => this.#onIopub(frames));
  }

  /** kernel_info_request until one is answered and its status reaches iopub (the subscription is live). */
  async #waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { msgId, reply } = this.request("shell", "kernel_info_request", {});
      const seen = new Promise<boolean>((resolve) => {
        const on = (m: Message) => m.parent_header.msg_id === msgId && (this.off("iopub", on), resolve(true));
        this.on("iopub", on);
        setTimeout(() => (this.off("iopub", on), resolve(false)), 1000);
      });
      await Promise.race([reply, new Promise((r) => setTimeout(r, 1000))]);
      if (await seen) return;
    }
    throw new Error(
      `${this.name} did not answer within ${timeoutMs / 1000} s${this.stderrTail() ? `: ${this.stderrTail()}` : ""}`,
    );
  }

  /** Sends a request; `reply` resolves with the reply (rejects when the kernel exits first). */
  request(
    channel: Channel,
    msgType: string,
    content: unknown,
  ): { msgId: string; header: Header; reply: Promise<Message> } {
    const message = newMessage(msgType, content, this.session);
    const msgId = message.header.msg_id;
    const reply = new Promise<Message>((resolve, reject) => {
      if (this.#exited) return reject(new Error(`${this.name} has exited`));
      this.#waiting.set(msgId, { resolve, reject });
    });
    reply.catch(() => undefined);
    if (!this.#exited) this.#sockets[channel]!.send(encodeMessage(message, this.#key));
    return { msgId, header: message.header, reply };
  }

  /** An execute_request (no stdin: input() fails instead of waiting). */
  execute(code: string, options: { storeHistory?: boolean } = {}) {
    const storeHistory = options.storeHistory ?? true;
    return this.request("shell", "execute_request", {
      code,
      silent: false,
      store_history: storeHistory,
      user_expressions: {},
      allow_stdin: false,
      stop_on_error: true,
    });
  }

  /** Asks the kernel to interrupt the running cell (interrupt_request on control). */
  interrupt(): Promise<Message> {
    return this.request("control", "interrupt_request", {}).reply;
  }

  #onReply(frames: Buffer[]): void {
    const message = this.#decode(frames);
    const id = message?.parent_header.msg_id;
    const waiting = id ? this.#waiting.get(id) : undefined;
    if (!waiting) return;
    this.#waiting.delete(id!);
    waiting.resolve(message!);
  }

  #onIopub(frames: Buffer[]): void {
    const message = this.#decode(frames);
    if (message) this.emit("iopub", message);
  }

  #decode(frames: Buffer[]): Message | undefined {
    try {
      return decodeMessage(frames, this.#key);
    } catch (error) {
      this.emit("warning", error);
      return undefined;
    }
  }

  /** Asks the kernel to shut down, waits up to `graceMs` for it to exit, then kills it. */
  async shutdown(graceMs = 1000): Promise<void> {
    if (this.#exited) return this.#cleanUp();
    this.#stopping = true;
    const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    try {
      this.request("control", "shutdown_request", { restart: false });
    } catch {
      // the control connection is gone: kill below
    }
    const timer = new Promise<void>((r) => setTimeout(r, graceMs).unref());
    await Promise.race([exited, timer]);
    this.killNow();
    await Promise.race([exited, new Promise<void>((r) => setTimeout(r, 2000).unref())]);
  }

  /** Kills the kernel (its process group) and removes the connection file, synchronously. */
  killNow(): void {
    this.#stopping = true;
    if (!this.#exited && this.#child.pid !== undefined) {
      try {
        if (process.platform === "win32") this.#child.kill("SIGKILL");
        else process.kill(-this.#child.pid, "SIGKILL");
      } catch {
        this.#child.kill("SIGKILL");
      }
    }
    this.#cleanUp();
  }

  #cleanUp(): void {
    for (const s of Object.values(this.#sockets)) s?.close();
    rmSync(this.#dir, { recursive: true, force: true });
    untrack(this);
  }
}
