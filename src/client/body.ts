/**
 * Reading an answer's body without trusting it: as a stream, counting the bytes as they arrive (after
 * decompression: Node's fetch and node-fetch decompress gzip, deflate and brotli as the body streams),
 * stopping at a limit, and decoding UTF-8 strictly. A compression bomb stops at the limit instead of
 * filling memory; invalid UTF-8 is refused with its byte offset instead of becoming U+FFFD.
 */
import * as nodeBuffer from "node:buffer";

/** The body passed its limit; reading stopped (the stream was cancelled). */
export class BodyTooLarge {
  constructor(
    readonly limit: number,
    readonly received: number,
  ) {}
}

/** The body is not valid UTF-8; `offset` is the first byte of the first invalid sequence. */
export class InvalidUtf8 {
  constructor(readonly offset: number) {}
}

/** A body's bytes as read, and whether it went on past what was read. */
export interface BodyBytes {
  bytes: Uint8Array;
  truncated: boolean;
}

/**
 * Reads `response`'s body chunk by chunk, at most `limit` bytes. Past the limit the stream is cancelled
 * (which stops the download and the decompression) and {@link BodyTooLarge} is thrown, or, with
 * `truncate`, the first `limit` bytes are returned.
 */
export function readBody(response: Response, limit: number, truncate = false): Promise<BodyBytes> {
  // Not async: a Node stream's promise is returned as it is (an async function would wrap it in another).
  try {
    const body = response.body;
    return isNodeStream(body) ? readNodeStream(body, limit, truncate) : readWebStream(response, limit, truncate);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** {@link readBody} of a web stream (Node's fetch), or of a Node stream through its async iterator. */
async function readWebStream(response: Response, limit: number, truncate: boolean): Promise<BodyBytes> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    // A web stream (Node's fetch) or a Node stream (node-fetch): both are async iterables, and leaving
    // the loop early cancels the one and destroys the other.
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (total + chunk.byteLength > limit) {
        if (!truncate) throw new BodyTooLarge(limit, total + chunk.byteLength);
        chunks.push(chunk.subarray(0, limit - total));
        return { bytes: Buffer.concat(chunks, limit), truncated: true };
      }
      chunks.push(chunk);
      total += chunk.byteLength;
    }
  }
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), truncated: false };
}

/** A Node stream's side of a body (node-fetch's, cross-fetch's in Node): read through its events. */
interface NodeStream {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
  destroy(): void;
  readonly readableEnded?: boolean;
  readonly destroyed?: boolean;
}

function isNodeStream(body: unknown): body is NodeStream {
  const stream = body as Partial<NodeStream> | null;
  return typeof stream?.on === "function" && typeof stream.destroy === "function";
}

/**
 * {@link readBody} of a Node stream, by its `data` and `end` events (its async iterator costs several
 * microseconds a body more, most of a small answer's reading): the same limit, truncation and errors. A
 * stream that closes before its end without an error is a premature close, as the iterator says.
 */
function readNodeStream(stream: NodeStream, limit: number, truncate: boolean): Promise<BodyBytes> {
  return new Promise<BodyBytes>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    let done = false;
    stream.on("data", (chunk) => {
      if (done) return;
      if (total + chunk.byteLength > limit) {
        done = true;
        stream.destroy();
        if (!truncate) return reject(new BodyTooLarge(limit, total + chunk.byteLength));
        chunks.push(chunk.subarray(0, limit - total));
        return resolve({ bytes: Buffer.concat(chunks, limit), truncated: true });
      }
      chunks.push(chunk);
      total += chunk.byteLength;
    });
    // `on`, not `once` (which wraps each listener and takes it off when it fires): each settles once, through `done`.
    stream.on("end", () => {
      if (done) return;
      done = true;
      resolve({ bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), truncated: false });
    });
    stream.on("error", (error) => {
      if (done) return;
      done = true;
      reject(error);
    });
    stream.on("close", () => {
      if (done) return;
      done = true;
      reject(Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    });
  });
}

/** Counts a streamed body's bytes against a limit, chunk by chunk. */
export class ByteCounter {
  #total = 0;
  constructor(readonly limit: number) {}
  add(chunk: Uint8Array): void {
    this.#total += chunk.byteLength;
    if (this.#total > this.limit) throw new BodyTooLarge(this.limit, this.#total);
  }
}

/**
 * Checks a streamed body's UTF-8 chunk by chunk, as {@link decodeUtf8} checks a whole one: a sequence
 * split between chunks is carried over; {@link InvalidUtf8} gives the offset in the whole body.
 */
export class Utf8Checker {
  /** The bytes of a sequence the last chunk began and did not finish (at most 3). */
  #carry: Uint8Array = new Uint8Array(0);
  /** Bytes checked before the carry. */
  #checked = 0;

  push(chunk: Uint8Array): void {
    if (this.#carry.length === 0 && isAscii?.(chunk)) {
      this.#checked += chunk.byteLength;
      return;
    }
    const bytes = this.#carry.length === 0 ? chunk : Buffer.concat([this.#carry, chunk]);
    const end = bytes.length - unfinishedTail(bytes);
    const whole = bytes.subarray(0, end);
    if (!(isUtf8?.(whole) ?? invalidUtf8At(whole) < 0)) throw new InvalidUtf8(this.#checked + invalidUtf8At(whole));
    this.#carry = bytes.slice(end);
    this.#checked += end;
  }

  /** At the body's end: a sequence still unfinished is invalid. */
  end(): void {
    if (this.#carry.length > 0) throw new InvalidUtf8(this.#checked);
  }
}

/** How many bytes at the end of `bytes` begin a multi-byte sequence that needs more bytes than are there (0–3). */
function unfinishedTail(bytes: Uint8Array): number {
  for (let k = 1; k <= Math.min(3, bytes.length); k++) {
    const byte = bytes[bytes.length - k]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needs > k ? k : 0;
  }
  return 0;
}

const strict = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

/** Node's `isAscii` and `isUtf8` (vectorised scans), where the runtime has them. */
const isAscii = (nodeBuffer as { isAscii?: (b: Uint8Array) => boolean }).isAscii;
const isUtf8 = (nodeBuffer as { isUtf8?: (b: Uint8Array) => boolean }).isUtf8;

/** The text of UTF-8 bytes (a BOM dropped, as `response.text()` does); throws {@link InvalidUtf8}. */
export function decodeUtf8(bytes: Uint8Array): string {
  // ASCII is valid UTF-8 and has no BOM: read as Latin-1, without the strict decoder's checks.
  if (isAscii?.(bytes)) {
    // A Buffer already (a Node stream's chunks): no view of it to make first.
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return buffer.toString("latin1");
  }
  try {
    return strict.decode(bytes);
  } catch {
    throw new InvalidUtf8(Math.max(0, invalidUtf8At(bytes)));
  }
}

/** For what is only shown (a preview, an error body): invalid sequences become U+FFFD, and `invalidAt` says where the first was. */
export function decodeForDisplay(bytes: Uint8Array): { text: string; invalidAt?: number } {
  const at = invalidUtf8At(bytes);
  return { text: lenient.decode(bytes), ...(at >= 0 ? { invalidAt: at } : {}) };
}

/**
 * The offset of the first byte of the first invalid UTF-8 sequence (stray or missing continuation
 * bytes, overlong forms, surrogates, values past U+10FFFF, a sequence cut off at the end), or -1.
 */
export function invalidUtf8At(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const lead = b[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const more =
      lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
    if (more === 0 || i + more >= b.length) return i;
    // The second byte's range rules out overlong forms, surrogates and values past U+10FFFF.
    const lo = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const hi = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    if (b[i + 1]! < lo || b[i + 1]! > hi) return i;
    for (let k = 2; k <= more; k++) if ((b[i + k]! & 0xc0) !== 0x80) return i;
    i += more + 1;
  }
  return -1;
}
