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
 * - The file (the cassette, or a recording) is rewritten after every recorded exchange (to a temporary
 *   file of this writer's own, then renamed into place), so a kernel killed mid-notebook leaves a valid
 *   file, at worst without its last exchange, and a stray `*.tmp` file beside it.
 * - Safe to share: several clients or processes may record to one cassette at once and every exchange is
 *   kept. Each write takes the lock file `<cassette>.lock` (created exclusively; it names the writer's
 *   process and host), reads the cassette as it is on disk now if another writer changed it since, appends
 *   its exchange, renames the new file into place and lets go. A lock rather than an append-only log, so
 *   that the cassette stays one JSON document, one exchange a line, that the committed fixtures, a diff
 *   and `Cassette.read` read as before. A writer waits at most {@link LOCK_WAIT_MS} for the lock, then
 *   says which file is locked; a lock left by a process that is gone (on this host), or older than
 *   {@link STALE_LOCK_MS} (no write holds it that long), is taken over.
 * - What `record` keeps, precisely: a recording begins when a `record` cassette is opened, in the file
 *   `<cassette>.recording` beside it, started empty then (under the lock); the cassette itself is left as
 *   it is. From that moment on the recording holds every exchange written by any `record` recorder of the
 *   cassette (this process or another), in the order they were written, each recorder's in the order it
 *   recorded them; what was in it before is dropped, including a recorder's opened earlier and still
 *   running. So recorders meant to make one recording together open their cassettes before any of them
 *   records (or share one `Cassette`). The recording replaces the cassette, one rename, when it finishes
 *   ({@link Cassette.finish}: `conn.close()`, or the process exiting with code 0); a recording that fails
 *   midway leaves the cassette as it was (nothing lost), and says where the recording is. A recorder that
 *   goes on after another finished goes on from the cassette. `auto` writes the cassette itself.
 * - A cassette that is unreadable, corrupt or cannot be written is a {@link CassetteError} naming the
 *   file (and the bad exchange's index): a local fault, never a request retried against the server. Every
 *   exchange is checked when the file is read, so a replay cannot fail halfway through a notebook.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { HEADERS } from "../api/assumptions";
import { describeDifferences, requestDistance, requestKey, type CanonicalRequest } from "./canonical";
import { ConfigurationError, type ErrorDetails } from "../errors";
import { CassetteError, CassetteMissError } from "./errors";
import { isStale } from "../files/lock-file";
import type { Redactor } from "./redact";

/**
 * - `record`: every request goes to the server and is recorded afresh, beside the file, which the
 *   recording replaces when it finishes ({@link Cassette.finish}).
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

export class Cassette {
  readonly path: string;
  readonly mode: Exclude<CassetteMode, "off">;
  readonly stats: CassetteStats = { replayed: 0, recorded: 0 };
  #file: CassetteFile;
  readonly #byKey = new Map<string, { exchanges: Exchange[]; next: number }>();

  /**
   * Opens a cassette: `replay` needs the file; `auto` reads it when it exists; `record` begins a new
   * recording beside it, which replaces it when finished (the header says what a recording keeps). Throws
   * {@link CassetteError} for a file that cannot be read, is corrupt, or (`record`) cannot be written.
   */
  constructor(options: CassetteOptions & { baseUrl: string }) {
    const mode = options.mode ?? "auto";
    if (mode === "off" || !CASSETTE_MODES.includes(mode))
      throw new ConfigurationError(`cassette.mode must be one of record, replay, auto; got ${JSON.stringify(mode)}`, {
        operation: "configure",
      });
    if (typeof options.path !== "string" || !options.path.trim())
      throw new ConfigurationError("cassette.path is required: the cassette file", { operation: "configure" });
    this.path = path.resolve(options.path);
    this.mode = mode;
    const existing = mode === "record" ? undefined : Cassette.read(this.path, mode === "replay");
    this.#file = existing ?? {
      format: FORMAT,
      version: 1,
      baseUrl: options.baseUrl,
      recordedAt: "",
      meta: { ...options.meta },
      exchanges: [],
    };
    for (const exchange of this.#file.exchanges) this.#index(exchange);
    // The recording begins now, beside the cassette: whatever any recorder writes from here on is kept.
    this.#target = mode === "record" ? `${this.path}${RECORDING}` : this.path;
    if (mode === "record") {
      // The cassette is written only when the recording finishes: a path it cannot be is refused now.
      if (statSync(this.path, { throwIfNoEntry: false })?.isDirectory())
        throw this.#unwritable(new Error(`EISDIR: ${this.path} is a directory`));
      this.#locked(() => this.#writeFile(this.#file));
      Cassette.#unfinished.add(this);
      if (!Cassette.#exitHooked) {
        process.on("exit", Cassette.#atExit);
        Cassette.#exitHooked = true;
      }
    }
  }

  /** The file this cassette writes: the cassette (`auto`), or its recording beside it (`record`). */
  readonly #target: string;

  /** Recordings not finished yet, finished (or reported) when the process exits. */
  static readonly #unfinished = new Set<Cassette>();
  static #exitHooked = false;

  /**
   * At exit: a recording not finished replaces its cassette when the process ends well (exit code 0, a
   * script that ran to its end); else the cassette stays as it was, and a line on stderr says where the
   * recording is. (A process ended by a signal runs no exit handler: its recording stays beside the cassette.)
   */
  static #atExit = (code: number): void => {
    for (const cassette of Cassette.#unfinished) {
      const recording = cassette.#target;
      if (code === 0)
        try {
          cassette.finish();
          continue;
        } catch (error) {
          process.stderr.write(`risk-portal-lab: ${(error as Error).message}\n`);
          continue;
        }
      cassette.#unfinishedNote(`the process exits with code ${code}`, recording);
    }
    Cassette.#unfinished.clear();
  };

  /** Says on stderr that a recording was left unfinished, and where it is (when it is still there). */
  #unfinishedNote(why: string, recording = this.#target): void {
    if (existsSync(recording))
      process.stderr.write(
        `risk-portal-lab: the recording of the cassette ${this.path} was not finished (${why}): the cassette is as it was; what was recorded is in ${recording}\n`,
      );
  }

  /**
   * Leaves a recording unfinished for good (`record`): the cassette stays as it was, the recording beside
   * it (`<cassette>.recording`), and a line on stderr says so, with `why`; the process's exit does not
   * finish it. The headless runner calls it for a notebook that ended before its `conn.close()`.
   * @example
   * ```ts
   * const rec = new RiskPortalClient({ baseUrl, auth: { apiKey }, cassette: { path: "fixtures/cassettes/study.json", mode: "record" } });
   * rec.cassette?.abandon("the study stopped early"); // the cassette stays as it was
   * ```
   */
  abandon(why: string): void {
    if (this.mode !== "record" || !Cassette.#unfinished.has(this)) return;
    Cassette.#unfinished.delete(this);
    this.#unfinishedNote(why);
  }

  /**
   * Ends a recording (`record`): what was recorded since it began, by this and every other recorder of the
   * cassette, replaces the cassette (one rename, under the lock). Until then the cassette is as it was, so
   * a recording that fails midway loses nothing; `conn.close()` calls this, and so does the end of a process
   * that exits with code 0. Does nothing in `replay` and `auto` (their writes go to the cassette itself),
   * or when another recorder of the same recording finished it already. Throws {@link CassetteError}
   * naming both files when the rename fails (the cassette is then as it was).
   * @example
   * ```ts
   * const rec = new RiskPortalClient({ baseUrl, auth: { apiKey }, cassette: { path: "fixtures/cassettes/study.json", mode: "record" } });
   * await rec.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
   * rec.cassette?.finish(); // the recording replaces the cassette now
   * ```
   */
  finish(): void {
    if (this.mode !== "record" || !Cassette.#unfinished.has(this)) return;
    // Finished by another recorder already (or its folder removed): nothing to lock, nor to make again.
    if (!existsSync(this.#target)) return void Cassette.#unfinished.delete(this);
    this.#locked(() => {
      try {
        renameSync(this.#target, this.path);
      } catch (error) {
        // Gone: another recorder of this recording finished it, and the cassette holds it.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw new CassetteError(
          `the recording ${this.#target} could not replace the cassette ${this.path}: ${(error as Error)?.message ?? String(error)}; the cassette is as it was`,
          { operation: "record" },
          this.path,
        );
      }
    });
    Cassette.#unfinished.delete(this);
  }

  /**
   * Reads a cassette file and checks every exchange; `undefined` when it does not exist and `required` is
   * false. Throws {@link CassetteError} naming the file (and the first bad exchange) otherwise.
   * @example
   * ```ts
   * import { Cassette } from "risk-portal-lab/internals";
   * const file = Cassette.read("../fixtures/cassettes/01-yield-curves.json"); // checked: a CassetteError names a bad exchange
   * file?.exchanges.length;
   * ```
   */
  static read(file: string, required = true): CassetteFile | undefined {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && !required) return undefined;
      const why =
        (error as NodeJS.ErrnoException).code === "ENOENT"
          ? 'it does not exist (record it first: mode "record" or "auto")'
          : (error as Error).message;
      throw new CassetteError(
        `cannot ${required ? "replay" : "read"} the cassette ${file}: ${why}`,
        { operation: "configure" },
        file,
      );
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

  /**
   * The next recorded exchange for this request (recorded order; the last one repeats), or undefined.
   * @example
   * ```ts
   * import { Cassette, canonicalRequest } from "risk-portal-lab/internals";
   * const cassette = new Cassette({ path: "../fixtures/cassettes/01-yield-curves.json", mode: "replay", baseUrl: "http://127.0.0.1" });
   * const exchange = cassette.take(canonicalRequest("GET", "/sim/tradables")); // undefined when never recorded
   * ```
   */
  take(request: CanonicalRequest): Exchange | undefined {
    if (this.mode === "record") return undefined;
    const entry = this.#byKey.get(requestKey(request));
    if (!entry) return undefined;
    const exchange = entry.exchanges[Math.min(entry.next, entry.exchanges.length - 1)]!;
    entry.next++;
    this.stats.replayed++;
    return exchange;
  }

  /**
   * The error for a request the cassette cannot answer, naming the closest recorded request and the differences.
   * @example
   * ```ts
   * import { Cassette, canonicalRequest } from "risk-portal-lab/internals";
   * const cassette = new Cassette({ path: "../fixtures/cassettes/01-yield-curves.json", mode: "replay", baseUrl: "http://127.0.0.1" });
   * const err = cassette.miss("RateAsset", canonicalRequest("POST", "/api/RateAsset", undefined, { currency: "SEK" }), { operation: "RateAsset" });
   * err.message; // names the closest recorded request and what differs
   * ```
   */
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

  /**
   * Records one exchange (scrubbed of secrets): appends it to the file as other recorders left it, under
   * the lock. Returns the exchange as stored; throws {@link CassetteError} when the file cannot be written.
   * @example
   * ```ts
   * import { Cassette, Redactor, canonicalRequest } from "risk-portal-lab/internals";
   * const cassette = new Cassette({ path: "fixtures/cassettes/study.json", mode: "record", baseUrl: "https://risk.example.com" });
   * cassette.record("Ping", canonicalRequest("GET", "/api/Ping"), { status: 200, statusText: "OK", headers: new Headers({ "content-type": "application/json" }), text: "{}" },
   *   new Date().toISOString(), new Redactor(["my-key"]));
   * cassette.abandon("an example");
   * ```
   */
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
      // Other recorders may have written since this one last did: append to the file as it is on disk.
      const onDisk = this.#onDisk();
      const base = onDisk ?? this.#file;
      // A new object: should the write fail, the exchange is in neither the file nor this cassette's copy.
      const file: CassetteFile = {
        ...base,
        recordedAt: base.recordedAt || receivedAt,
        exchanges: [...base.exchanges, exchange],
      };
      this.#writeFile(file, redactor);
      this.#file = file;
    });
    // A recorder that goes on after a finish records a new recording, which replaces the cassette in turn.
    if (this.mode === "record") Cassette.#unfinished.add(this);
    this.stats.recorded++;
    return exchange;
  }

  #index(exchange: Exchange): void {
    const key = requestKey(exchange.request);
    const entry = this.#byKey.get(key);
    if (entry) entry.exchanges.push(exchange);
    else this.#byKey.set(key, { exchanges: [exchange], next: 0 });
  }

  /** The file as this cassette last wrote it: another writer's rename shows as a different version. */
  #written?: FileVersion;

  /** The file as another writer left it since this one last wrote it, or undefined when none did. */
  #onDisk(): CassetteFile | undefined {
    // A recording that is gone was finished by another recorder: it is the cassette now; go on from it.
    if (this.#target !== this.path && !existsSync(this.#target)) return Cassette.read(this.path, false);
    return this.#changedOnDisk() ? Cassette.read(this.#target, false) : undefined;
  }

  #changedOnDisk(): boolean {
    try {
      const now = versionOf(statSync(this.#target));
      return (
        !this.#written ||
        now.ino !== this.#written.ino ||
        now.size !== this.#written.size ||
        now.mtimeMs !== this.#written.mtimeMs
      );
    } catch {
      return false; // not there (yet, or removed): this cassette's copy is all there is
    }
  }

  /** Writes the whole file to a temporary file of this writer's own and renames it into place. */
  #writeFile(file: CassetteFile, redactor?: Redactor): void {
    const text = serialise(file);
    const temp = `${this.#target}.${writerTagOf()}.${++tempCounter}.tmp`;
    try {
      mkdirSync(path.dirname(this.path), { recursive: true });
      writeFileSync(temp, redactor ? redactor.text(text) : text);
      renameSync(temp, this.#target);
      this.#written = versionOf(statSync(this.#target));
    } catch (error) {
      removeQuietly(temp);
      throw this.#unwritable(error);
    }
  }

  #unwritable(error: unknown, lock?: string): CassetteError {
    const what = lock ? ` (its lock file ${lock})` : "";
    return new CassetteError(
      `the cassette ${this.path} cannot be written${what}: ${(error as Error)?.message ?? String(error)}`,
      { operation: "record" },
      this.path,
    );
  }

  /** Runs `work` holding the cassette's lock file: waits for another writer's (bounded), takes over a dead or stale one. */
  #locked<T>(work: () => T): T {
    const lock = `${this.path}.lock`;
    const token = `${process.pid} ${HOST} ${writerTagOf()}.${++lockCounter}`;
    const startedMs = Date.now();
    let holder: LockHolder | undefined;
    try {
      mkdirSync(path.dirname(lock), { recursive: true });
    } catch (error) {
      throw this.#unwritable(error, lock);
    }
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0 && Date.now() - startedMs > LOCK_WAIT_MS) {
        const who = holder ? describeHolder(holder) : "another writer";
        throw new CassetteError(
          `the cassette ${this.path} stayed locked by ${who} for over ${LOCK_WAIT_MS / 1000} s (${lock}); if no recording is running, remove the lock file`,
          { operation: "record" },
          this.path,
        );
      }
      let held: true | LockHolder | undefined;
      try {
        held = tryLock(lock, token);
      } catch (error) {
        throw this.#unwritable(error, lock);
      }
      if (held === true) break;
      holder = held ?? holder;
      if (held && isStale(held, STALE_LOCK_MS)) takeOver(lock, held);
      else if (held) pause(Math.min(50, 1 + attempt));
      // else: released between our attempt and our look at it; try again at once
    }
    try {
      return work();
    } finally {
      if (readLock(lock)?.text === token) removeQuietly(lock);
    }
  }
}

/** The suffix of a recording's file beside its cassette (`fixtures/cassettes/01-yield-curves.json.recording`). */
const RECORDING = ".recording";
/** No write holds the lock this long: an older lock is a crashed (or frozen) writer's, whatever its pid says. */
const STALE_LOCK_MS = 5_000;
/** How long a writer waits for another's lock before saying so (longer than {@link STALE_LOCK_MS}, so a stale lock is taken over first). */
const LOCK_WAIT_MS = 10_000;
/** Per-process tag of temporary and lock files, so two processes (or two cassettes) never write the same one; made on first write (crypto loads then, not on import). */
let writerTag: string | undefined;
const writerTagOf = (): string => (writerTag ??= `${process.pid}.${randomBytes(4).toString("hex")}`);
const HOST = hostname();
let tempCounter = 0;
let lockCounter = 0;

/** One version of a file: every write renames a new file into place, so a new inode, size or time is another writer's. */
interface FileVersion {
  ino: number;
  size: number;
  mtimeMs: number;
}

function versionOf({ ino, size, mtimeMs }: FileVersion): FileVersion {
  return { ino, size, mtimeMs };
}

/** A lock file as found: `pid host tag` of its writer, and the file's identity and age. */
interface LockHolder {
  text: string;
  ino: number;
  mtimeMs: number;
}

/** Creates the lock file holding `token`: `true`, or who holds it already (undefined: released meanwhile). */
function tryLock(lock: string, token: string): true | LockHolder | undefined {
  let fd: number;
  try {
    fd = openSync(lock, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readLock(lock);
    throw error;
  }
  try {
    writeSync(fd, token);
  } catch (error) {
    closeSync(fd);
    removeQuietly(lock);
    throw error;
  }
  closeSync(fd);
  return true;
}

function readLock(lock: string): LockHolder | undefined {
  let fd: number;
  try {
    fd = openSync(lock, "r");
  } catch {
    return undefined;
  }
  try {
    const { ino, mtimeMs } = fstatSync(fd);
    return { text: readFileSync(fd, "utf8"), ino, mtimeMs };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes a stale lock. It is renamed aside first and checked: when two writers take one stale lock over
 * at once, the second may have moved the first one's fresh lock, and gives it back. (Should a third writer
 * lock the file in the microseconds between, two writers hold it: a window left open, as every lock file
 * leaves one when it takes over a crashed writer's.)
 */
function takeOver(lock: string, stale: LockHolder): void {
  const aside = `${lock}.${writerTagOf()}.${++tempCounter}.stale`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // released, or taken over by another writer already
  }
  const moved = readLock(aside);
  if (moved && (moved.ino !== stale.ino || moved.text !== stale.text)) {
    try {
      linkSync(aside, lock);
    } catch {
      /* a third writer holds the lock now */
    }
  }
  removeQuietly(aside);
}

function describeHolder(holder: LockHolder): string {
  const [pid, host] = holder.text.split(" ");
  return host ? `process ${pid} on ${host}` : "a writer that did not name itself";
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* already gone, or never made */
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
    throw new CassetteError(
      `the cassette ${file} is not JSON: ${(error as Error).message}`,
      { operation: "configure" },
      file,
    );
  }
  if (
    !isRecord(parsed) ||
    parsed.format !== FORMAT ||
    parsed.version !== 1 ||
    !Array.isArray(parsed.exchanges) ||
    typeof parsed.baseUrl !== "string" ||
    (parsed.meta !== undefined && !isRecord(parsed.meta)) ||
    (parsed.recordedAt !== undefined && typeof parsed.recordedAt !== "string")
  ) {
    throw new CassetteError(
      `${file} is not a risk-portal-lab cassette (version 1): expected { format: "${FORMAT}", version: 1, baseUrl, recordedAt, meta: {...}, exchanges: [...] }`,
      { operation: "configure" },
      file,
    );
  }
  parsed.exchanges.forEach((exchange, index) => {
    const wrong = exchangeProblem(exchange);
    if (wrong)
      throw new CassetteError(
        `the cassette ${file} is corrupt: exchange ${index}: ${wrong}; record it again`,
        { operation: "configure" },
        file,
        index,
      );
    origins.set(exchange, { file, index });
  });
  return { meta: {}, recordedAt: "", ...parsed } as CassetteFile;
}

/** Where each exchange read from a file came from, for an error that names it. */
const origins = new WeakMap<Exchange, { file: string; index: number }>();

/** A reason phrase as fetch's `Response` accepts it (tab, space, visible ASCII, obs-text). */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A header name and value as fetch's `Headers` accepts them (a token; no NUL, CR or LF, nothing beyond a byte). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[^\0\r\n\u0100-\uffff]*$/;

/**
 * What is wrong with one recorded exchange, or undefined when it can be replayed: the shape `record` writes
 * (the request as `canonicalRequest` makes it) and a response fetch's `Response` can be made of. A status
 * is 200–599: 1xx answers are never final, and `Response` refuses them.
 */
function exchangeProblem(e: unknown): string | undefined {
  if (!isRecord(e)) return "not an object";
  const { operation, request, response, receivedAt } = e as Partial<Record<keyof Exchange, unknown>>;
  if (typeof operation !== "string" || !operation) return "operation must be a non-empty string";
  if (!isRecord(request)) return "request must be an object";
  if (typeof request.method !== "string" || !request.method || typeof request.path !== "string")
    return "request.method and request.path must be strings";
  if (
    request.query !== undefined &&
    (!isRecord(request.query) || Object.values(request.query).some((v) => typeof v !== "string"))
  )
    return "request.query must map names to strings";
  if (!isRecord(response)) return "response must be an object";
  const { status, statusText, headers, text } = response;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599)
    return `response.status must be an HTTP status 200-599, got ${JSON.stringify(status)}`;
  if (statusText !== undefined && (typeof statusText !== "string" || !REASON_PHRASE.test(statusText)))
    return `response.statusText must be a reason phrase, got ${JSON.stringify(statusText)}`;
  if (!isRecord(headers) || Object.values(headers).some((v) => typeof v !== "string"))
    return "response.headers must map names to strings";
  for (const [name, value] of Object.entries(headers))
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value as string))
      return `response.headers: fetch refuses the header ${JSON.stringify(name)}: ${JSON.stringify(value)}`;
  if (text !== undefined && typeof text !== "string") return "response.text must be a string";
  if (!("body" in response) && text === undefined) return "response must have a body (JSON) or a text";
  if (typeof receivedAt !== "string" || Number.isNaN(Date.parse(receivedAt)))
    return "receivedAt must be an ISO 8601 date-time";
  for (const [where, value] of [
    ["request.body", request.body],
    ["response.body", response.body],
  ] as const)
    if (deeperThan(value, CASSETTE_MAX_DEPTH)) return `${where} is nested deeper than ${CASSETTE_MAX_DEPTH} levels`;
  return undefined;
}

/**
 * The deepest nesting of objects and arrays a recorded body may have: far past any answer of the service
 * (a dozen levels), and well within what the recursive walks of a replay (canonical keys, JSON text,
 * response checks) can take before the stack runs out.
 */
export const CASSETTE_MAX_DEPTH = 512;

/** Whether `value` nests objects or arrays more than `limit` deep: walked with a stack of its own, never recursion. */
function deeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      if (typeof child === "object" && child !== null) stack.push([child as object, depth + 1]);
  }
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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

/** Statuses whose response cannot have a body. */
const NO_BODY = new Set([204, 205, 304]);

/**
 * A recorded response as a fetch `Response`, for the pipeline to read as if it came from the server.
 * Throws {@link CassetteError} (naming the cassette and the exchange) for one that cannot be: never a raw
 * `TypeError`, which would read as a network failure. Exchanges read from a file were checked already.
 * @example
 * ```ts
 * import { Cassette, replayResponse } from "risk-portal-lab/internals";
 * const file = Cassette.read("../fixtures/cassettes/01-yield-curves.json");
 * const [first] = file?.exchanges ?? [];
 * if (first) await replayResponse(first).json(); // a fetch Response, as the pipeline replays it
 * ```
 */
export function replayResponse(exchange: Exchange): Response {
  try {
    const { response } = exchange;
    let text = replayText.get(response);
    if (text === undefined) {
      text = response.text ?? (response.body === undefined ? "" : JSON.stringify(response.body));
      replayText.set(response, text);
    }
    const body = NO_BODY.has(response.status) ? null : text;
    return new Response(body, {
      status: response.status,
      statusText: response.statusText ?? "",
      headers: response.headers,
    });
  } catch (error) {
    const origin = origins.get(exchange);
    const where = origin ? `the cassette ${origin.file}: exchange ${origin.index}` : "a recorded exchange";
    const why = exchangeProblem(exchange) ?? (error as Error)?.message ?? String(error);
    const operation = (exchange as Partial<Exchange> | undefined)?.operation;
    throw new CassetteError(
      `${where} cannot be replayed: ${why}; record it again`,
      { operation: typeof operation === "string" ? operation : "replay", cause: error },
      origin?.file ?? "",
      origin?.index,
    );
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (!text) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
