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
 * - The file is rewritten after every recorded exchange (to a temporary file, then renamed), so a
 *   kernel that dies mid-notebook leaves a valid cassette.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { HEADERS } from "../api/assumptions";
import { describeDifferences, requestDistance, requestKey, type CanonicalRequest } from "./canonical";
import { ConfigurationError, RiskPortalError, type ErrorDetails } from "./errors";
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
  readonly #file: CassetteFile;
  readonly #byKey = new Map<string, { exchanges: Exchange[]; next: number }>();

  /**
   * Opens a cassette: `replay` needs the file; `auto` reads it when it exists; `record` starts afresh
   * (the file is written at the first recorded exchange).
   */
  constructor(options: CassetteOptions & { baseUrl: string }) {
    const mode = options.mode ?? "auto";
    if (mode === "off" || !CASSETTE_MODES.includes(mode)) throw new ConfigurationError(`cassette.mode must be one of record, replay, auto; got ${JSON.stringify(mode)}`, { operation: "configure" });
    if (typeof options.path !== "string" || !options.path.trim()) throw new ConfigurationError("cassette.path is required: the cassette file", { operation: "configure" });
    this.path = path.resolve(options.path);
    this.mode = mode;
    const existing = mode === "record" ? undefined : Cassette.read(this.path, mode === "replay");
    this.#file = existing ?? { format: FORMAT, version: 1, baseUrl: options.baseUrl, recordedAt: "", meta: { ...options.meta }, exchanges: [] };
    for (const exchange of this.#file.exchanges) this.#index(exchange);
  }

  /** Reads a cassette file; `undefined` when it does not exist and `required` is false. */
  static read(file: string, required = true): CassetteFile | undefined {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && !required) return undefined;
      const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "it does not exist (record it first: mode \"record\" or \"auto\")" : (error as Error).message;
      throw new ConfigurationError(`cannot replay the cassette ${file}: ${why}`, { operation: "configure" });
    }
    let parsed: Partial<CassetteFile>;
    try {
      parsed = JSON.parse(text) as Partial<CassetteFile>;
    } catch (error) {
      throw new ConfigurationError(`the cassette ${file} is not JSON: ${(error as Error).message}`, { operation: "configure" });
    }
    if (parsed.format !== FORMAT || parsed.version !== 1 || !Array.isArray(parsed.exchanges) || typeof parsed.baseUrl !== "string") {
      throw new ConfigurationError(`${file} is not a risk-portal-lab cassette (version 1): expected { format: "${FORMAT}", version: 1, baseUrl, exchanges: [...] }`, { operation: "configure" });
    }
    return { meta: {}, recordedAt: "", ...parsed } as CassetteFile;
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
      ? [`${operation}: no recorded exchange in ${where} matches this request. The closest recorded request (${closest.operation}) differs in:`, ...differences.map((l) => `  ${l}`)]
      : [`${operation}: ${where} has no exchanges to replay.`];
    lines.push('Record it again (mode "record" or "auto") if the request changed on purpose.');
    return new CassetteMissError(lines.join("\n"), details, this.path, closest?.request, differences);
  }

  /** Records one exchange (scrubbed of secrets) and rewrites the file. Returns the exchange as stored. */
  record(operation: string, request: CanonicalRequest, response: { status: number; statusText: string; headers: Headers; text: string }, receivedAt: string, redactor: Redactor): Exchange {
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
    if (!this.#file.recordedAt) this.#file.recordedAt = receivedAt;
    // Not indexed for replay: a poll loop being recorded must see the server's new answers, not its own.
    this.#file.exchanges.push(exchange);
    this.stats.recorded++;
    this.#write(redactor);
    return exchange;
  }

  #index(exchange: Exchange): void {
    const key = requestKey(exchange.request);
    const entry = this.#byKey.get(key);
    if (entry) entry.exchanges.push(exchange);
    else this.#byKey.set(key, { exchanges: [exchange], next: 0 });
  }

  #write(redactor: Redactor): void {
    const text = redactor.text(serialise(this.#file));
    mkdirSync(path.dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, text);
    renameSync(temp, this.path);
  }
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
