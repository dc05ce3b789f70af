/**
 * A minimal ZMTP 3.x client over node:net (https://rfc.zeromq.org/spec/23/ and /37/), enough to talk
 * to a Jupyter kernel: the NULL security mechanism, the greeting and READY handshake with the
 * Socket-Type property, DEALER (shell, control) and SUB (iopub) sockets, multipart messages of short
 * and long frames. One TCP connection per socket; no reconnection (a kernel that goes away ends the run).
 *
 * SUB subscribes to everything. A ZMTP 3.0 peer (Deno's kernel, the Rust `zeromq` crate) takes a
 * subscription as a message whose first byte is 1; a 3.1 peer takes a SUBSCRIBE command: which one is
 * chosen by the minor version in the peer's greeting.
 */
import net from "node:net";
import { EventEmitter } from "node:events";

export type SocketType = "DEALER" | "SUB";

const FLAG_MORE = 0x01;
const FLAG_LONG = 0x02;
const FLAG_COMMAND = 0x04;
const GREETING_SIZE = 64;

/** Our greeting: signature, version 3.1, mechanism NULL, as-server 0, filler. */
export function greeting(): Buffer {
  const g = Buffer.alloc(GREETING_SIZE);
  g[0] = 0xff;
  g[9] = 0x7f;
  g[10] = 3;
  g[11] = 1;
  g.write("NULL", 12, "ascii");
  return g;
}

/** One frame: flags, a 1-byte or 8-byte size, the body. */
export function encodeFrame(body: Buffer, more: boolean, command = false): Buffer {
  const long = body.length > 255;
  const head = Buffer.alloc(long ? 9 : 2);
  head[0] = (more ? FLAG_MORE : 0) | (long ? FLAG_LONG : 0) | (command ? FLAG_COMMAND : 0);
  if (long) head.writeBigUInt64BE(BigInt(body.length), 1);
  else head[1] = body.length;
  return Buffer.concat([head, body]);
}

/** A command's body: its name (short string) then its data. */
export function commandBody(name: string, data: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([Buffer.from([name.length]), Buffer.from(name, "ascii"), data]);
}

/** READY's metadata: properties as name (short string) and value (4-byte length). */
export function encodeProperties(props: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(props)) {
    const v = Buffer.from(value, "utf8");
    const len = Buffer.alloc(4);
    len.writeUInt32BE(v.length);
    parts.push(Buffer.from([name.length]), Buffer.from(name, "ascii"), len, v);
  }
  return Buffer.concat(parts);
}

export function decodeProperties(data: Buffer): Record<string, string> {
  const props: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const nameLength = data[at]!;
    const name = data.subarray(at + 1, at + 1 + nameLength).toString("ascii");
    at += 1 + nameLength;
    if (at + 4 > data.length) throw new Error("ZMTP: a truncated property in READY");
    const valueLength = data.readUInt32BE(at);
    props[name] = data.subarray(at + 4, at + 4 + valueLength).toString("utf8");
    at += 4 + valueLength;
  }
  return props;
}

/** Bytes as they arrive, taken in pieces without copying them more than once. */
export class ByteQueue {
  #chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The first `n` bytes (n ≤ length), removed. */
  take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.#chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
    } else {
      const whole = Buffer.concat(this.#chunks);
      out = whole.subarray(0, n);
      this.#chunks = whole.length > n ? [whole.subarray(n)] : [];
    }
    this.length -= n;
    return out;
  }

  /** The byte at `i` (i < length), not removed. */
  peek(i: number): number {
    for (const c of this.#chunks) {
      if (i < c.length) return c[i]!;
      i -= c.length;
    }
    throw new RangeError("ByteQueue.peek past the end");
  }
}

/** A frame as read: its body, and whether more frames of the message follow, or it is a command. */
export interface Frame {
  body: Buffer;
  more: boolean;
  command: boolean;
}

/** The next whole frame at the head of the queue, removed; undefined while it has not all arrived. */
export function readFrame(queue: ByteQueue): Frame | undefined {
  if (queue.length < 2) return undefined;
  const flags = queue.peek(0);
  const long = (flags & FLAG_LONG) !== 0;
  const headSize = long ? 9 : 2;
  if (queue.length < headSize) return undefined;
  let size = queue.peek(1);
  if (long) {
    size = 0;
    for (let i = 1; i < 9; i++) size = size * 256 + queue.peek(i);
  }
  if (queue.length < headSize + size) return undefined;
  queue.take(headSize);
  return { body: queue.take(size), more: (flags & FLAG_MORE) !== 0, command: (flags & FLAG_COMMAND) !== 0 };
}

export interface ZmtpOptions {
  host: string;
  port: number;
  type: SocketType;
  /** How long to keep retrying a refused connection (the kernel may not listen yet), ms. Default 10 s. */
  connectTimeoutMs?: number;
}

/**
 * A connected ZMTP socket. Emits `message` (Buffer[], one multipart message), `error` and `close`.
 * Messages sent before the handshake completes are queued.
 */
export class ZmtpSocket extends EventEmitter {
  readonly type: SocketType;
  /** The peer's greeting version and READY properties, once known. */
  peer: { major: number; minor: number; properties: Record<string, string> } | undefined;
  #socket: net.Socket | undefined;
  #queue = new ByteQueue();
  #parts: Buffer[] = [];
  #pending: Buffer[] = [];
  #greeted = false;
  #ready = false;
  #closed = false;

  private constructor(type: SocketType) {
    super();
    this.type = type;
  }

  /** Connects (retrying while refused) and resolves once the handshake is done. */
  static async connect(options: ZmtpOptions): Promise<ZmtpSocket> {
    const z = new ZmtpSocket(options.type);
    const socket = await connectWithRetry(options.host, options.port, options.connectTimeoutMs ?? 10_000);
    await z.#attach(socket);
    return z;
  }

  /** Sends one multipart message. */
  send(parts: readonly Buffer[]): void {
    if (this.#closed) throw new Error(`ZMTP ${this.type}: the connection is closed`);
    const bytes = Buffer.concat(parts.map((p, i) => encodeFrame(p, i < parts.length - 1)));
    if (this.#ready) this.#socket!.write(bytes);
    else this.#pending.push(bytes);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket?.destroy();
  }

  #attach(socket: net.Socket): Promise<void> {
    this.#socket = socket;
    socket.setNoDelay(true);
    return new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => (this.#ready ? this.emit("error", error) : reject(error));
      this.once("ready", resolve);
      socket.on("data", (chunk: Buffer) => {
        this.#queue.push(chunk);
        try {
          this.#drain();
        } catch (error) {
          socket.destroy();
          fail(error as Error);
        }
      });
      socket.on("error", fail);
      socket.on("close", () => {
        this.#closed = true;
        if (!this.#ready) reject(new Error(`ZMTP ${this.type}: the peer closed the connection during the handshake`));
        this.emit("close");
      });
      socket.write(greeting());
    });
  }

  #drain(): void {
    if (!this.#greeted) {
      if (this.#queue.length < GREETING_SIZE) return;
      this.#onGreeting(this.#queue.take(GREETING_SIZE));
    }
    for (let frame = readFrame(this.#queue); frame; frame = readFrame(this.#queue)) {
      if (frame.command) this.#onCommand(frame.body);
      else this.#onDataFrame(frame);
    }
  }

  #onGreeting(g: Buffer): void {
    if (g[0] !== 0xff || g[10]! < 3)
      throw new Error(
        `ZMTP ${this.type}: the peer does not speak ZMTP 3 (greeting ${g.subarray(0, 12).toString("hex")})`,
      );
    const mechanism = g.subarray(12, 32).toString("ascii").replace(/\0+$/, "");
    if (mechanism !== "NULL")
      throw new Error(`ZMTP ${this.type}: the peer wants the ${mechanism} mechanism; only NULL is supported`);
    this.#greeted = true;
    this.peer = { major: g[10]!, minor: g[11]!, properties: {} };
    this.#socket!.write(encodeFrame(commandBody("READY", encodeProperties({ "Socket-Type": this.type })), false, true));
  }

  #onCommand(body: Buffer): void {
    const name = body.subarray(1, 1 + body[0]!).toString("ascii");
    const data = body.subarray(1 + body[0]!);
    if (name === "ERROR")
      throw new Error(
        `ZMTP ${this.type}: the peer refused the connection: ${data.subarray(1, 1 + data[0]!).toString("utf8")}`,
      );
    if (name !== "READY" || this.#ready) return; // PING, PONG, …: nothing a client needs to answer here
    this.peer!.properties = decodeProperties(data);
    this.#ready = true;
    if (this.type === "SUB") this.#subscribeAll();
    for (const bytes of this.#pending) this.#socket!.write(bytes);
    this.#pending = [];
    this.emit("ready");
  }

  /** Subscribes to every topic: a SUBSCRIBE command for a 3.1 peer, the 3.0 message form otherwise. */
  #subscribeAll(): void {
    const minor = this.peer!.minor;
    this.#socket!.write(
      minor >= 1 ? encodeFrame(commandBody("SUBSCRIBE"), false, true) : encodeFrame(Buffer.from([1]), false),
    );
  }

  #onDataFrame(frame: Frame): void {
    this.#parts.push(frame.body);
    if (frame.more) return;
    const message = this.#parts;
    this.#parts = [];
    this.emit("message", message);
  }
}

/** A TCP connection to host:port, retried every 50 ms while refused, for up to `timeoutMs`. */
async function connectWithRetry(host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect({ host, port });
        socket.once("connect", () => (socket.removeListener("error", reject), resolve(socket)));
        socket.once("error", reject);
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ECONNREFUSED" || Date.now() > deadline)
        throw new Error(`cannot connect to ${host}:${port}: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
