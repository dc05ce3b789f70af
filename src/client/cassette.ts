/**
 * Cassettes: recorded HTTP exchanges, so that a notebook or a test re-runs without the service, without
 * network and without credentials. One JSON file per notebook (`fixtures/cassettes/01-yield-curves.json`).
 *
 * - Exchanges are matched on the canonical request (method, path, sorted query, canonical body: key
 *   order and date spellings do not matter). Several exchanges with one request (a poll loop) are
 *   replayed in the order they were recorded; the last one repeats once they are used up.
 * - Nothing secret is written: request headers are not recorded at all, token endpoint exchanges never
 *   pass through here, known secrets (API keys, tokens, client secrets) are scrubbed from every string,
 *   and fields named like a secret (`exposed_value`, `api_key`, `token`, …) keep only their last four
 *   characters (as `frames.apiKeys` shows them anyway).
 * - The file is rewritten after every recorded exchange (to a temporary file of this writer's own, then
 *   renamed), so a kernel that dies mid-notebook leaves a valid cassette.
 * - Safe to share: several clients or processes may record to one cassette at once and every exchange is
 *   kept. A writer takes a lock file (`<cassette>.lock`, created exclusively; one left by a dead process,
 *   or older than {@link STALE_LOCK_MS}, is taken over), reads the cassette as it is on disk now, appends
 *   its exchange and renames the new file into place. A lock rather than an append-only log, so that
 *   the cassette stays one JSON document that the committed fixtures, a diff and `Cassette.read` all
 *   read as before. `record` empties the cassette when it is opened (under the lock), not at its first
 *   exchange: every exchange written after that, by any recorder, is kept. Several recorders meant to
 *   make one recording open it with `record` once and share that `Cassette` (or open it with `auto`).
 * - A cassette that is unreadable, corrupt or cannot be written is a {@link CassetteError} naming the
 *   file (and the exchange): a local fault, never a request retried against the server.
 */
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { HEADERS } from "../api/assumptions";
import { describeDifferences, requestDistance, requestKey, type CanonicalRequest } from "./canonical";
import { CassetteError, ConfigurationError, RiskPortalError, type ErrorDetails } from "./errors";
import type { Redactor } from "./redact";

/**
 * - `record`: every request goes to the server and is recorded; the file is started afresh.
 * - `replay`: every request is answered from the cassette; one that was not recorded throws
 *   {@link CassetteMissError}. No network, no credentials needed.
 * - `auto`: replay what the cassette has, send and record the rest.
 * - `off`: no cassette.
 */
export type CassetteMode = "record" | "replay" | "auto" | "off";

export const CASSETTE_MODES: readonly CassetteMode[] = ["record", "replay", "auto", "off"];

export interface CassetteOptions {
  /** The cassette file (created with its directory when recording). */
  path: string;
  /** Default `auto`. */
  mode?: CassetteMode;
  /** Facts about the recording kept in the file (e.g. `{ source: "simulator", seed: 1 }`); never secrets. */
  meta?: Record<string, unknown>;
}

export interface RecordedResponse {
  status: number;
  statusText?: string;
  /** Response headers that matter on replay: content type, request id, retry-after. */
  headers: Record<string, string>;
  /** The body as JSON when it was JSON … */
  body?: unknown;
  /** … else as text. */
  text?: string;
}

export interface Exchange {
  operation: string;
  request: CanonicalRequest;
  response: RecordedResponse;
  /** When the response arrived (ISO 8601 UTC). */
  receivedAt: string;
}

export interface CassetteFile {
  format: typeof FORMAT;
  version: 1;
  /** The base URL the exchanges were recorded from. */
  baseUrl: string;
  recordedAt: string;
  meta: Record<string, unknown>;
  exchanges: Exchange[];
}

const FORMAT = "risk-portal-lab cassette";
/** Response headers kept in a cassette (lower case). */
const KEPT_HEADERS = ["content-type", HEADERS.requestId.toLowerCase(), HEADERS.retryAfter.toLowerCase()];

export interface CassetteStats {
  /** Requests answered from the cassette. */
  replayed: number;
  /** Exchanges recorded during this session. */
  recorded: number;
}

/** A replay found no recorded exchange for a request. Says which recorded request is closest, and how it differs. */
export class CassetteMissError extends RiskPortalError {
  readonly cassette: string;
  /** The closest recorded request, if the cassette has any. */
  readonly closest?: CanonicalRequest;
  /** How the request differs from the closest recorded one, one line per field. */
  readonly differences: string[];

  constructor(message: string, details: ErrorDetails, cassette: string, closest: CanonicalRequest | undefined, differences: string[]) {
    super(message, details);
    this.cassette = cassette;
    this.closest = closest;
    this.differences = differences;
  }
}

export class Cassette {
  readonly path: string;
  readonly mode: Exclude<CassetteMode, "off">;
  readonly stats: CassetteStats = { replayed: 0, recorded: 0 };
  #file: CassetteFile;
  readonly #byKey = new Map<string, { exchanges: Exchange[]; next: number }>();

  /**
   * Opens a cassette: `replay` needs the file; `auto` reads it when it exists; `record` starts afresh
   * (the file is written at the first recorded exchange).
   */
  constructor(options: CassetteOptions & { baseUrl: string }) {
    const mode = options.mode ?? "auto";
    if (mode === "off" || !CASSETTE_MODES.includes(mode))
      throw new ConfigurationError(`cassette.mode must be one of record, replay, auto; got ${JSON.stringify(mode)}`, { operation: "configure" });
    if (typeof options.path !== "string" || !options.path.trim())
      throw new ConfigurationError("cassette.path is required: the cassette file", { operation: "configure" });
    this.path = path.resolve(options.path);
    this.mode = mode;
    const existing = mode === "record" ? undefined : Cassette.read(this.path, mode === "replay");
    this.#file = existing ?? { format: FORMAT, version: 1, baseUrl: options.baseUrl, recordedAt: "", meta: { ...options.meta }, exchanges: [] };
    for (const exchange of this.#file.exchanges) this.#index(exchange);
    // `record` starts afresh now: whatever another recorder writes from here on is kept.
    if (mode === "record") this.#locked(() => this.#writeFile(this.#file));
  }

  /** Reads a cassette file; `undefined` when it does not exist and `required` is false. */
  static read(file: string, required = true): CassetteFile | undefined {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && !required) return undefined;
      const why =
        (error as NodeJS.ErrnoException).code === "ENOENT" ? 'it does not exist (record it first: mode "record" or "auto")' : (error as Error).message;
      throw new CassetteError(`cannot ${required ? "replay" : "read"} the cassette ${file}: ${why}`, { operation: "configure" }, file);
    }
    return parseCassette(text, file);
  }

  /** The base URL the cassette was recorded from. */
  get baseUrl(): string {
    return this.#file.baseUrl;
  }

  /** When the first exchange was recorded (ISO 8601 UTC; empty before any). */
  get recordedAt(): string {
    return this.#file.recordedAt;
  }

  /** Facts about the recording (`{ source: "simulator", … }`). */
  get meta(): Readonly<Record<string, unknown>> {
    return this.#file.meta;
  }

  /** Number of exchanges in the cassette. */
  get size(): number {
    return this.#file.exchanges.length;
  }

  /** True when requests with no recorded exchange go to the server (`record`, `auto`). */
  get records(): boolean {
    return this.mode !== "replay";
  }

  /** The next recorded exchange for this request (recorded order; the last one repeats), or undefined. */
  take(request: CanonicalRequest): Exchange | undefined {
    if (this.mode === "record") return undefined;
    const entry = this.#byKey.get(requestKey(request));
    if (!entry) return undefined;
    const exchange = entry.exchanges[Math.min(entry.next, entry.exchanges.length - 1)]!;
    entry.next++;
    this.stats.replayed++;
    return exchange;
  }

  /** The error for a request the cassette cannot answer, naming the closest recorded request and the differences. */
  miss(operation: string, request: CanonicalRequest, details: ErrorDetails): CassetteMissError {
    let closest: Exchange | undefined;
    let best = Infinity;
    for (const exchange of this.#file.exchanges) {
      const d = requestDistance(exchange.request, request);
      if (d < best) {
        best = d;
        closest = exchange;
      }
    }
    const differences = closest ? describeDifferences(closest.request, request) : [];
    const where = `the cassette ${this.path} (${this.size} exchange${this.size === 1 ? "" : "s"})`;
    const lines = closest
      ? [
          `${operation}: no recorded exchange in ${where} matches this request. The closest recorded request (${closest.operation}) differs in:`,
          ...differences.map((l) => `  ${l}`),
        ]
      : [`${operation}: ${where} has no exchanges to replay.`];
    lines.push('Record it again (mode "record" or "auto") if the request changed on purpose.');
    return new CassetteMissError(lines.join("\n"), details, this.path, closest?.request, differences);
  }

  /** Records one exchange (scrubbed of secrets) and rewrites the file. Returns the exchange as stored. */
  record(
    operation: string,
    request: CanonicalRequest,
    response: { status: number; statusText: string; headers: Headers; text: string },
    receivedAt: string,
    redactor: Redactor,
  ): Exchange {
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = redactor.text(value);
    }
    const recorded: RecordedResponse = { status: response.status, headers };
    if (response.statusText) recorded.statusText = response.statusText;
    const json = parseJson(response.text);
    if (json.ok) recorded.body = redactor.mask(json.value);
    else recorded.text = redactor.text(response.text);
    const exchange: Exchange = { operation, request: redactor.mask(request), response: recorded, receivedAt };
    // Not indexed for replay: a poll loop being recorded must see the server's new answers, not its own.
    this.#locked(() => {
      // What other recorders wrote since this one last did is on disk: append to that, not to our copy.
      const onDisk = this.#changedOnDisk() ? Cassette.read(this.path, false) : undefined;
      const file = onDisk ?? this.#file;
      file.exchanges.push(exchange);
      if (!file.recordedAt) file.recordedAt = receivedAt;
      this.#writeFile(file, redactor);
      this.#file = file;
    });
    this.stats.recorded++;
    return exchange;
  }

  #index(exchange: Exchange): void {
    const key = requestKey(exchange.request);
    const entry = this.#byKey.get(key);
    if (entry) entry.exchanges.push(exchange);
    else this.#byKey.set(key, { exchanges: [exchange], next: 0 });
  }

  /** Size and modification time of the file as this recorder last wrote it, to tell whether another did since. */
  #written?: { size: number; mtimeMs: number };

  #changedOnDisk(): boolean {
    try {
      const now = statSync(this.path);
      return !this.#written || now.size !== this.#written.size || now.mtimeMs !== this.#written.mtimeMs;
    } catch {
      return false; // not there (yet, or removed): our copy is all there is
    }
  }

  /** Writes the whole file to a temporary file of this writer's own and renames it into place. */
  #writeFile(file: CassetteFile, redactor?: Redactor): void {
    const text = serialise(file);
    const temp = `${this.path}.${WRITER_TAG}.${++tempCounter}.tmp`;
    try {
      mkdirSync(path.dirname(this.path), { recursive: true });
      writeFileSync(temp, redactor ? redactor.text(text) : text);
      renameSync(temp, this.path);
      const { size, mtimeMs } = statSync(this.path);
      this.#written = { size, mtimeMs };
    } catch (error) {
      rmSync(temp, { force: true });
      throw new CassetteError(`the cassette ${this.path} cannot be written: ${(error as Error).message}`, { operation: "record" }, this.path);
    }
  }

  /** Runs `work` holding the cassette's lock file (bounded wait; a dead or stale holder is taken over). */
  #locked<T>(work: () => T): T {
    const lock = `${this.path}.lock`;
    const started = Date.now();
    const refused = (error: unknown) =>
      new CassetteError(`the cassette ${this.path} cannot be written (its lock ${lock}): ${(error as Error).message}`, { operation: "record" }, this.path);
    try {
      mkdirSync(path.dirname(lock), { recursive: true });
    } catch (error) {
      throw refused(error);
    }
    for (let attempt = 0; ; attempt++) {
      try {
        closeSync(openSync(lock, "wx"));
        writeFileSync(lock, `${process.pid} ${Date.now()}`);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "EEXIST") throw refused(error);
        if (staleLock(lock)) {
          rmSync(lock, { force: true });
          continue;
        }
        if (Date.now() - started > LOCK_WAIT_MS) {
          throw new CassetteError(
            `the cassette ${this.path} has been locked by another writer for over ${LOCK_WAIT_MS / 1000} s (${lock}); remove the lock file if no recording is running`,
            { operation: "record" },
            this.path,
          );
        }
        pause(Math.min(50, 1 + attempt));
      }
    }
    try {
      return work();
    } finally {
      try {
        unlinkSync(lock);
      } catch {
        /* taken over as stale by another writer: nothing left to release */
      }
    }
  }
}

/** A lock older than this is a crashed writer's, whatever its pid says. */
const STALE_LOCK_MS = 10_000;
/** How long a writer waits for another's lock before saying so. */
const LOCK_WAIT_MS = 15_000;
/** Per-process tag of temporary files, so two processes (or two cassettes) never write the same one. */
const WRITER_TAG = `${process.pid}.${randomBytes(4).toString("hex")}`;
let tempCounter = 0;

/** Whether a lock file belongs to a process that is gone, or is too old to be a live writer's. */
function staleLock(lock: string): boolean {
  let text: string;
  let mtimeMs: number;
  try {
    text = readFileSync(lock, "utf8");
    mtimeMs = statSync(lock).mtimeMs;
  } catch {
    return false; // just released (or being written): try again
  }
  if (Date.now() - mtimeMs > STALE_LOCK_MS) return true;
  const pid = Number(text.split(" ")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return Date.now() - mtimeMs > 1_000; // created, pid not yet written
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Sleeps the thread: the cassette is written synchronously, between an answer and the caller. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Parses and checks a cassette's text: the header, then every exchange, naming the first bad one. */
function parseCassette(text: string, file: string): CassetteFile {
  let parsed: Partial<CassetteFile>;
  try {
    parsed = JSON.parse(text) as Partial<CassetteFile>;
  } catch (error) {
    throw new CassetteError(`the cassette ${file} is not JSON: ${(error as Error).message}`, { operation: "configure" }, file);
  }
  if (
    !parsed ||
    typeof parsed !== "object" ||
    parsed.format !== FORMAT ||
    parsed.version !== 1 ||
    !Array.isArray(parsed.exchanges) ||
    typeof parsed.baseUrl !== "string"
  ) {
    throw new CassetteError(
      `${file} is not a risk-portal-lab cassette (version 1): expected { format: "${FORMAT}", version: 1, baseUrl, exchanges: [...] }`,
      { operation: "configure" },
      file,
    );
  }
  parsed.exchanges.forEach((exchange, index) => {
    const wrong = exchangeProblem(exchange);
    if (wrong)
      throw new CassetteError(`the cassette ${file} is corrupt: exchange ${index}: ${wrong}; record it again`, { operation: "configure" }, file, index);
  });
  return { meta: {}, recordedAt: "", ...parsed } as CassetteFile;
}

/** What is wrong with one recorded exchange, or undefined when it can be replayed. */
function exchangeProblem(e: unknown): string | undefined {
  if (!e || typeof e !== "object" || Array.isArray(e)) return "not an object";
  const { operation, request, response, receivedAt } = e as Partial<Exchange>;
  if (typeof operation !== "string" || !operation) return "operation must be a non-empty string";
  if (!request || typeof request !== "object") return "request must be an object";
  if (typeof request.method !== "string" || typeof request.path !== "string") return "request.method and request.path must be strings";
  if (request.query !== undefined && (typeof request.query !== "object" || request.query === null)) return "request.query must be an object";
  if (!response || typeof response !== "object") return "response must be an object";
  if (!Number.isInteger(response.status) || response.status < 200 || response.status > 599)
    return `response.status must be an HTTP status 200-599, got ${JSON.stringify(response.status)}`;
  if (!response.headers || typeof response.headers !== "object" || Object.values(response.headers).some((v) => typeof v !== "string"))
    return "response.headers must map names to strings";
  if (response.statusText !== undefined && typeof response.statusText !== "string") return "response.statusText must be a string";
  if (response.text !== undefined && typeof response.text !== "string") return "response.text must be a string";
  if (typeof receivedAt !== "string" || Number.isNaN(Date.parse(receivedAt))) return "receivedAt must be an ISO 8601 date-time";
  return undefined;
}

/**
 * The file's text: the header fields one per line, then one exchange per line, so that a re-recording
 * shows in a diff exchange by exchange and a large table does not become 100,000 indented lines.
 */
function serialise(file: CassetteFile): string {
  const { exchanges, ...header } = file;
  const head = Object.entries(header).map(([k, v]) => ` ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
  const body = exchanges.map((e, i) => `  ${JSON.stringify(e)}${i < exchanges.length - 1 ? "," : ""}`);
  return ["{", ...head, ' "exchanges": [', ...body, " ]", "}", ""].join("\n");
}

/** Body text of replayed exchanges, serialised once (a poll loop or a benchmark replays one many times). */
const replayText = new WeakMap<RecordedResponse, string>();

/** A recorded response as a fetch `Response`, for the pipeline to read as if it came from the server. */
export function replayResponse(exchange: Exchange): Response {
  const { response } = exchange;
  let text = replayText.get(response);
  if (text === undefined) {
    text = response.text ?? (response.body === undefined ? "" : JSON.stringify(response.body));
    replayText.set(response, text);
  }
  // Statuses without a body (204, 304) cannot be given one.
  const body = response.status === 204 || response.status === 304 ? null : text;
  return new Response(body, { status: response.status, statusText: response.statusText ?? "", headers: response.headers });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (!text) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
