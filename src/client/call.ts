/**
 * One call of the pipeline: its options, the client's settings they override, and {@link PreparedCall}
 * (the operation, its checked and encoded request, its deadline, and what has happened so far).
 */
import type { UnknownFieldsPolicy } from "../api/assumptions";
import type { Brand } from "../api/brand";
import type { OperationDef } from "../api/operation";
import type { AuthProvider } from "./auth";
import type { ResponseCache } from "../record/cache";
import { canonicalRequest, requestKey, type CanonicalRequest } from "../record/canonical";
import type { Cassette, Exchange } from "../record/cassette";
import { ConfigurationError, RequestValidationError, formatIssues, type ErrorDetails } from "./errors";
import { startDeadline, type Deadline } from "./deadline";
import { encodeCall } from "./encode-memo";
import { checkDateMismatch, type DateMismatchPolicy } from "./date-mismatch";
import { ProvenanceRecord, spellProvenance, type Provenance, type ProvenanceSource } from "./provenance";
import type { Redactor } from "../record/redact";
import { resolveRetry, type RetryOptions } from "./retry";

/** Options of one call; each overrides the client's setting for this call only. */
export interface CallOptions {
  /** Aborts the call (and any wait between retries). */
  signal?: AbortSignal;
  /** Time the whole call may take, retries included. Default: the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Retry settings for this call, or `false` for none. Writes are never re-sent whatever this says. */
  retry?: Partial<RetryOptions> | false;
  /**
   * Uploads and launcher creates: when the server answers `is_success: false`, throw
   * `OperationFailedError` (default) or return the outcome with its `error_messages`.
   */
  throwOnFailure?: boolean;
  /** Extra request headers for this call. */
  headers?: Record<string, string>;
  /**
   * A request field neither the spec nor the service's pages name: `refuse` (the client's default: most
   * likely a typo, the error names the closest known field) or `send` (for a newer service).
   */
  unknownFields?: UnknownFieldsPolicy;
  /**
   * The response cache for this call (cacheable reads, when the client has a cache): `true` (default)
   * uses it, `false` neither reads nor stores, `"refresh"` asks the server and stores the answer.
   */
  cache?: boolean | "refresh";
  /**
   * The most bytes the answer may have, counted decompressed as they arrive (see
   * `defaultMaxResponseBytes`); past it the call ends with `ResponseTooLargeError`. A streamed call
   * (`requestStream`, Parquet) holds no body: only this option, not the client's, limits it.
   */
  maxResponseBytes?: number;
  /**
   * How the answer is checked: `"schema"` (default) against the operation's whole response schema, or
   * `"top-level"`: an object holding the schema's required top-level fields, the rest left to a caller
   * that checks it as it reads it (frames' transaction-table fetch checks each row as it builds the
   * columns, without the copy of the whole table a full check makes). An answer that fails the top-level
   * check is checked in full, so its error is the schema's.
   */
  responseCheck?: "schema" | "top-level";
  /**
   * An answer for another date than the request asked for (a Saturday's curve answered with Friday's):
   * `warn` (the client's default) returns it, and frames built from it say so; `error` throws
   * `DateMismatchError` naming both dates. See `RiskPortalClientOptions.dateMismatch`.
   */
  dateMismatch?: DateMismatchPolicy;
}

/** A call's signal before its clock starts: never aborted. */
const NOT_STARTED = new AbortController().signal;

/** The size limit of a small answer (everything but transaction tables): 32 MiB. */
export const SMALL_ANSWER_BYTES = 32 * 2 ** 20;

/** The size limit of an answer that is a large table (an operation's `largeAnswer`): 512 MiB. */
export const TABLE_ANSWER_BYTES = 512 * 2 ** 20;

/** An operation's default `maxResponseBytes`: large tables 512 MiB, everything else 32 MiB. */
export function defaultMaxResponseBytes(op: OperationDef): number {
  return op.largeAnswer ? TABLE_ANSWER_BYTES : SMALL_ANSWER_BYTES;
}

export interface PipelineConfig {
  /** Base URL without a trailing slash. */
  baseUrl: string;
  fetch: typeof fetch;
  auth: AuthProvider;
  redactor: Redactor;
  timeoutMs: number;
  retry: RetryOptions;
  /** The brand every request is spelled in (`$type` namespace, branded enum values and field names). */
  brand: Brand;
  /** The client's unknown-field policy (a call may override it). */
  unknownFields: UnknownFieldsPolicy;
  headers: Record<string, string>;
  now: () => number;
  /** Record/replay, when the client has a cassette. */
  cassette?: Cassette;
  /** The response cache for cacheable reads, when the client has one. */
  cache?: ResponseCache;
  /** The client's size limit for every answer held whole (undefined: each operation's default). */
  maxResponseBytes?: number;
  /** The client's `dateMismatch` (undefined: `warn`; a call may override it). */
  dateMismatch?: DateMismatchPolicy;
}

/** What the server (or a cassette) answered with a success status, before decoding. */
export interface Received {
  status: number;
  text: string;
  receivedAt: string;
  requestId?: string;
  /** The cassette exchange, when a cassette answered. */
  replayed?: Exchange;
  /** The body went to the call's {@link BodySink} as it arrived (`text` is then empty). */
  streamed?: boolean;
}

/**
 * Takes a success answer's body as it arrives, chunk by chunk, instead of the pipeline holding it whole
 * (see `sendStreaming`). What it throws ends the call as it is: throw the package's errors.
 */
export interface BodySink {
  /** An attempt's body begins: forget whatever an earlier attempt delivered. */
  reset(): void | Promise<void>;
  /** The next bytes of the body (a fresh buffer each time: it may be kept). */
  chunk(bytes: Uint8Array): void | Promise<void>;
}

/** What a streamed call returns: the body went to the sink. */
export interface Streamed {
  status: number;
  provenance: Provenance;
}

/**
 * One call: the operation, its validated and encoded request, its options resolved against the client's,
 * its deadline and what has happened so far (requests sent, a 401 refresh). Refuses bad input and bad
 * options before anything is sent.
 */
export class PreparedCall<Op extends OperationDef = OperationDef> {
  readonly redactor: Redactor;
  readonly timeoutMs: number;
  readonly retry: RetryOptions;
  /** The most bytes an answer held whole may have (decompressed). */
  readonly maxResponseBytes: number;
  /**
   * The most bytes a streamed answer may have (decompressed): the call's `maxResponseBytes`, else the
   * larger of the client's and the operation's default. A stream holds no body, so a client limit set low
   * to spare memory does not stop it; the default still stops a compression bomb filling the disk.
   */
  readonly streamBytes: number;
  /** Uploads and launcher creates: their errors say whether the server may have applied them. */
  readonly write: boolean;
  readonly url: string;
  readonly body?: string;
  readonly cache?: ResponseCache;
  readonly cacheKey: string;
  /** Identical calls in flight share one request (cacheable reads, no cassette). */
  readonly shareable: boolean;
  readonly #encoded: { body?: Record<string, unknown>; query?: Record<string, string> };
  #canonical?: CanonicalRequest;
  #masked?: CanonicalRequest;
  /** The call's deadline, from {@link startClock} (shared with calls of the same timeout that end within a few ms). */
  #deadline?: Deadline;
  #released = false;
  /** Aborts at the deadline or with the caller's signal (from {@link startClock}; before it, never). */
  signal: AbortSignal = NOT_STARTED;
  startedMs = 0;
  /** Requests of this call that left for the server (a write's answer may then be lost, not its effect). */
  sends = 0;
  /** Whether the one refresh-and-resend after a 401 was used. */
  refreshed = false;
  /** Where the answer came from, when a same-origin redirect moved the request from {@link url}. */
  finalUrl?: string;
  /** Where a success answer's body goes as it arrives (`sendStreaming`); absent: it is read whole. */
  sink?: BodySink;

  constructor(
    readonly config: PipelineConfig,
    readonly op: Op,
    input: unknown,
    readonly options: CallOptions,
  ) {
    this.redactor = config.redactor;
    this.timeoutMs = checkTimeout(options.timeoutMs ?? config.timeoutMs, op.name);
    if (options.dateMismatch !== undefined) checkDateMismatch(options.dateMismatch, op.name);
    this.retry = callRetry(config.retry, options.retry, op.name);
    this.maxResponseBytes = checkLimit(
      options.maxResponseBytes ?? config.maxResponseBytes ?? defaultMaxResponseBytes(op),
      op.name,
    );
    this.streamBytes =
      options.maxResponseBytes === undefined
        ? Math.max(config.maxResponseBytes ?? 0, defaultMaxResponseBytes(op))
        : this.maxResponseBytes;
    this.write = op.retry === "write";
    const encoded = encodeCall(op, input, config.brand, options.unknownFields ?? config.unknownFields);
    this.url = config.baseUrl + op.path;
    if (!encoded.ok) {
      const message = `${op.name}: invalid request, nothing was sent — ${formatIssues(encoded.issues)}`;
      throw new RequestValidationError(
        this.redactor.text(message),
        this.details(this.write ? { outcome: "not-applied" } : {}),
        this.redactor.value(encoded.issues),
      );
    }
    this.#encoded = encoded;
    if (encoded.query && Object.keys(encoded.query).length)
      this.url += `?${new URLSearchParams(encoded.query).toString()}`;
    if (encoded.body !== undefined) this.body = JSON.stringify(encoded.body);
    this.cache = config.cache && op.cacheable && options.cache !== false ? config.cache : undefined;
    this.cacheKey = this.cache ? `${config.baseUrl} ${config.auth.identity} ${requestKey(this.request())}` : "";
    this.shareable = this.cache !== undefined && !config.cassette;
  }

  /** The canonical request: computed once, and only when something needs it (cassette, cache, provenance). */
  request(): CanonicalRequest {
    return (this.#canonical ??= canonicalRequest(
      this.op.method,
      this.op.path,
      this.#encoded.query,
      this.#encoded.body,
    ));
  }

  /** Error details, built only when something fails (redacting the URL on every call costs). */
  details(extra?: Partial<ErrorDetails>): ErrorDetails {
    return { operation: this.op.name, method: this.op.method, url: this.redactor.text(this.url), ...extra };
  }

  /** The response's provenance, as the raw parts attached to an answer; it names the request lazily. */
  provenanceRecord(
    source: ProvenanceSource,
    receivedAt: string,
    requestId: string | undefined,
    replayed?: Exchange,
  ): ProvenanceRecord {
    const cassette = this.config.cassette;
    return new ProvenanceRecord(
      this.op.name,
      receivedAt,
      source,
      replayed ? cassette!.baseUrl : this.config.baseUrl,
      requestId,
      replayed ? cassette!.path : undefined,
      this.finalUrl && !replayed ? this.redactor.text(this.finalUrl) : undefined,
      this,
    );
  }

  /** The response's provenance, spelled out (the request named when first read). */
  provenance(
    source: ProvenanceSource,
    receivedAt: string,
    requestId: string | undefined,
    replayed?: Exchange,
  ): Provenance {
    return spellProvenance(this.provenanceRecord(source, receivedAt, requestId, replayed));
  }

  /** The request's body as encoded (undefined without one), for what a write's reported failure says of it. */
  get encodedBody(): Record<string, unknown> | undefined {
    return this.#encoded.body;
  }

  /** The request with secrets masked, for provenance: computed once, when first looked at. */
  maskedRequest(): CanonicalRequest {
    return (this.#masked ??= this.redactor.mask(this.request()));
  }

  /** Starts the call's deadline (the whole call, retries included) and joins the caller's signal to it. */
  startClock(): void {
    this.startedMs = this.config.now();
    this.#deadline = startDeadline(this.timeoutMs);
    this.signal = this.options.signal
      ? AbortSignal.any([this.options.signal, this.#deadline.signal])
      : this.#deadline.signal;
  }

  stopClock(): void {
    if (this.#released || !this.#deadline) return;
    this.#released = true;
    this.#deadline.release();
  }

  /** Whether the call's own deadline has passed (not the caller's abort). */
  get timedOut(): boolean {
    return this.#deadline?.signal.aborted ?? false;
  }

  get deadlineAtMs(): number {
    return this.startedMs + this.timeoutMs;
  }
}

/** The call's deadline: a positive number of milliseconds, or Infinity for none. Checked before anything is sent. */
function checkTimeout(value: unknown, operation: string): number {
  if (typeof value === "number" && value > 0) return value;
  throw new ConfigurationError(
    `${operation}: timeoutMs must be a number of milliseconds > 0 (Infinity for no deadline), got ${typeof value === "number" ? String(value) : JSON.stringify(value)}; nothing was sent`,
    { operation },
  );
}

/** A size limit: a positive number of bytes, or Infinity for none. Checked before anything is sent. */
export function checkLimit(value: unknown, operation: string): number {
  if (typeof value === "number" && value > 0) return value;
  throw new ConfigurationError(
    `${operation}: maxResponseBytes must be a number of bytes > 0 (Infinity for no limit), got ${typeof value === "number" ? String(value) : JSON.stringify(value)}; nothing was sent`,
    { operation },
  );
}

function callRetry(base: RetryOptions, call: CallOptions["retry"], operation: string): RetryOptions {
  if (call === undefined) return base;
  try {
    return resolveRetry(base, call);
  } catch (error) {
    throw new ConfigurationError(`${operation}: ${(error as Error).message}; nothing was sent`, { operation });
  }
}
