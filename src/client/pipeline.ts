/**
 * The one request pipeline every operation goes through, in named steps (see {@link send}): validate and
 * encode → response cache → a shared identical call in flight, or attempts with retries (cassette or auth
 * → fetch with deadline and caller's signal → 401 refresh-and-resend once → record; errors labelled for
 * what happened) → decode → remember → provenance.
 *
 * The steps are exported for their own tests (test/client/pipeline-steps.test.ts); the package exports
 * none of them: `RiskPortalClient` is the way in.
 */
import { HEADERS, REQUEST_CONTENT_TYPE, type UnknownFieldsPolicy } from "../api/assumptions";
import type { Brand } from "../api/brand";
import { isRecord, toFieldIssues, type OperationDef, type ResponseOf } from "../api/operation";
import { raceAbort, type AuthProvider } from "./auth";
import type { CacheEntry, ResponseCache } from "./cache";
import { canonicalRequest, requestKey, type CanonicalRequest } from "./canonical";
import { replayResponse, type Cassette, type Exchange } from "./cassette";
import {
  AbortError,
  CassetteError,
  ConfigurationError,
  NetworkError,
  OperationFailedError,
  ProtocolError,
  RedirectError,
  RateLimitError,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
  RiskPortalError,
  TimeoutError,
  errorFromResponse,
  formatIssues,
  withOutcome,
  type ErrorDetails,
  type WriteOutcome,
  type WriteReport,
} from "./errors";
import { startDeadline, type Deadline } from "./deadline";
import { encodeCall } from "./encode-memo";
import { checkDateMismatch, refuseOtherDate, type DateMismatchPolicy } from "./date-mismatch";
import { BodyTooLarge, ByteCounter, decodeForDisplay, decodeUtf8, InvalidUtf8, readBody, Utf8Checker } from "./body";
import {
  attachToAnswer,
  ProvenanceRecord,
  spellProvenance,
  type Provenance,
  type ProvenanceSource,
} from "./provenance";
import type { Redactor } from "./redact";
import { checkResponse } from "./response-check";
import { discardBody, followRedirects, isRedirect, RedirectRefused, redirectMessage, type Hop } from "./redirect";
import {
  DEFAULT_RETRY,
  backoffDelayMs,
  isRetryable,
  neverReachedServer,
  parseRetryAfterMs,
  protocolViolation,
  violationText,
  resolveRetry,
  type RetryOptions,
} from "./retry";

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
   * {@link defaultMaxResponseBytes}); past it the call ends with `ResponseTooLargeError`. A streamed call
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
   * `DateMismatchError` naming both dates. See {@link RiskPortalClientOptions.dateMismatch}.
   */
  dateMismatch?: DateMismatchPolicy;
}

/** A call's signal before its clock starts: never aborted. */
const NOT_STARTED = new AbortController().signal;

/** The size limit of a small answer (everything but transaction tables): 32 MiB. */
export const SMALL_ANSWER_BYTES = 32 * 2 ** 20;
/** The size limit of an answer that is a large table (an operation's `largeAnswer`): 512 MiB. */
export const TABLE_ANSWER_BYTES = 512 * 2 ** 20;
/** How much of an error answer's body is kept (it is shown, not used): 1 MiB. */
const ERROR_BODY_BYTES = 2 ** 20;
/** How much of an answer of the wrong Content-Type is shown. */
const PREVIEW_BYTES = 200;
/** JSON media types: application/json, application/problem+json, application/vnd.x+json, text/json. */
const JSON_TYPE = /^\s*(application\/([\w.+-]*\+)?json|text\/json)\s*(;|$)/i;

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
 * (see {@link sendStreaming}). What it throws ends the call as it is: throw the package's errors.
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
 * Sends one operation and returns its validated response, in named steps: prepare (validate, encode) →
 * the cache → a shared in-flight call, or attempts with retries (each: cassette or auth → fetch → read,
 * recorded) → decode → remember (cache, emptied after a change) → provenance.
 */
export async function send<Op extends OperationDef>(
  config: PipelineConfig,
  op: Op,
  input: unknown,
  options: CallOptions = {},
): Promise<ResponseOf<Op>> {
  return sendPrepared(prepare(config, op, input, options));
}

/** The call, its input and options checked; a write refused here was not sent (`not-applied`). */
function prepare<Op extends OperationDef>(
  config: PipelineConfig,
  op: Op,
  input: unknown,
  options: CallOptions,
): PreparedCall<Op> {
  try {
    return new PreparedCall(config, op, input, options);
  } catch (error) {
    if (op.retry === "write" && error instanceof RiskPortalError && error.outcome === undefined)
      throw withOutcome(error, "not-applied");
    throw error;
  }
}

/**
 * A write's error always says what the write did: one thrown without an `outcome` (a token request's, a
 * cassette's, the caller's abort) gets `not-applied` when nothing was sent, else `unknown`.
 */
function withWriteOutcome(call: PreparedCall, error: unknown): unknown {
  if (!call.write || !(error instanceof RiskPortalError) || error.outcome !== undefined) return error;
  if (call.sends === 0) return withOutcome(error, "not-applied", ` ${call.op.name} was not sent.`);
  return withOutcome(
    error,
    "unknown",
    ` ${call.op.name} had been sent: the server may have applied it.${call.howToCheck()}`,
  );
}

async function sendPrepared<Op extends OperationDef>(call: PreparedCall<Op>): Promise<ResponseOf<Op>> {
  try {
    const hit = call.cache ? await fromCache(call) : undefined;
    if (hit) return checkDate(call, hit);
    call.startClock();
    const shared = call.shareable ? await joinInFlight(call) : undefined;
    if (shared) return checkDate(call, shared);
    const generation = call.cache?.generation;
    const answer = attempts(call);
    if (call.shareable)
      call.cache!.lead(
        call.cacheKey,
        answer.then((got) => (call.decode(got), entryOf(got))),
      );
    const got = await answer;
    const data = call.decode(got);
    if (call.cache || (call.op.mutates && call.config.cache)) await remember(call, got, generation);
    return checkDate(
      call,
      attachToAnswer(
        data,
        call.provenanceRecord(got.replayed ? "cassette" : "live", got.receivedAt, got.requestId, got.replayed),
      ),
    );
  } catch (error) {
    throw withWriteOutcome(call, error);
  } finally {
    call.stopClock();
  }
}

/** The answer, or with `dateMismatch: "error"` a `DateMismatchError` when it is for another date than asked. */
function checkDate<T>(call: PreparedCall, answer: T): T {
  if ((call.options.dateMismatch ?? call.config.dateMismatch) === "error") refuseOtherDate(call, answer);
  return answer;
}

/**
 * Sends one operation and hands the body of its success answer to `sink` as it arrives, so a large
 * answer is never held whole; same validation, auth, retries (an attempt whose body broke off resets
 * the sink and starts again), deadline and errors as {@link send}. The response cache is not used. With
 * a cassette the body is held (recording keeps it; replaying has it) and handed to the sink in one chunk.
 */
export async function sendStreaming<Op extends OperationDef>(
  config: PipelineConfig,
  op: Op,
  input: unknown,
  sink: BodySink,
  options: CallOptions = {},
): Promise<Streamed> {
  const call = prepare(config, op, input, { ...options, cache: false });
  call.sink = sink;
  call.startClock();
  try {
    const got = await attempts(call);
    if (!got.streamed) {
      await sink.reset();
      await sink.chunk(new TextEncoder().encode(got.text));
    }
    return {
      status: got.status,
      provenance: call.provenance(got.replayed ? "cassette" : "live", got.receivedAt, got.requestId, got.replayed),
    };
  } finally {
    call.stopClock();
  }
}

/** An error thrown by a {@link BodySink}: it ends the call as it is (it is not the network's). */
class SinkFailure {
  constructor(readonly error: unknown) {}
}

async function toSink(step: () => void | Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    throw new SinkFailure(error);
  }
}

/** A success answer's body, chunk by chunk, into the call's sink. */
async function streamBody(call: PreparedCall, response: Response): Promise<void> {
  const sink = call.sink!;
  await toSink(() => sink.reset());
  if (!response.body) return;
  // The same limit and UTF-8 check as a body read whole: each chunk is counted and checked before the sink has it.
  const counter = new ByteCounter(call.streamBytes);
  const utf8 = new Utf8Checker();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    counter.add(chunk);
    utf8.push(chunk);
    await toSink(() => sink.chunk(chunk));
  }
  utf8.end();
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
  /** Where a success answer's body goes as it arrives ({@link sendStreaming}); absent: it is read whole. */
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

  /** The request with secrets masked, for provenance: computed once, when first looked at. */
  maskedRequest(): CanonicalRequest {
    return (this.#masked ??= this.redactor.mask(this.request()));
  }

  decode(got: { status: number; text: string; requestId?: string }): ResponseOf<Op> {
    return decodeResponse(this, got);
  }

  /**
   * A write whose request left but whose answer could not be taken (a 2xx that cannot be read, an answer
   * that broke HTTP): its outcome is unknown, and the note says how to check. Nothing for reads; a
   * write that was never sent (a cassette answered) is not-applied.
   */
  outcomeUnknown(status?: number): { extra: Partial<ErrorDetails>; note: string } {
    if (!this.write) return { extra: {}, note: "" };
    if (this.sends === 0)
      return { extra: { outcome: "not-applied" }, note: ` ${this.op.name} was not sent (a cassette answered).` };
    const said = status === undefined ? "The request was sent" : `The server answered HTTP ${status}`;
    return {
      extra: { outcome: "unknown" },
      note: ` ${said}, so it may have applied it.${this.howToCheck()} Re-sending it unchecked may apply it twice.`,
    };
  }

  /**
   * A write the server reported failed (`is_success: false`): all or nothing, unless it asked for best
   * effort. Then the messages say what was stored when each names one rejected record (`bond_data[3]: …`);
   * a refusal of the whole request says "nothing was stored"; anything else leaves it unknown.
   */
  failedWrite(messages: readonly string[]): FailedWrite | undefined {
    if (!this.write) return undefined;
    const body = this.#encoded.body;
    if (body?.use_best_effort !== true) return { outcome: "not-applied" };
    const report = bestEffortReport(body, messages);
    if (report) return { outcome: report.stored > 0 ? "partially-applied" : "not-applied", report };
    if (messages.some((m) => /\bnothing was stored\b/i.test(m))) return { outcome: "not-applied" };
    return { outcome: "unknown" };
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

  /** How to tell whether a write whose answer was lost was applied (the operation declares it). */
  howToCheck(): string {
    return this.op.whenOutcomeUnknown ? ` ${this.op.whenOutcomeUnknown}` : "";
  }

  /** The call's own deadline or the caller's abort, as the error that says so (and what a write may have done). */
  stopped(waiting: string): RiskPortalError {
    const sent = this.write && this.sends > 0;
    const unknown = sent ? { outcome: "unknown" as const } : this.write ? { outcome: "not-applied" as const } : {};
    const note = sent
      ? `; the request had been sent, so the server may have applied it.${this.howToCheck()}`
      : this.write
        ? "; nothing was sent"
        : "";
    if (this.timedOut)
      return new TimeoutError(
        `${this.op.name} timed out after ${this.timeoutMs} ms${waiting}${note}`,
        this.details(unknown),
        this.timeoutMs,
      );
    return new AbortError(
      `${this.op.name} was aborted by the caller${note}`,
      this.details({ ...unknown, cause: this.redactor.cause(this.options.signal?.reason) }),
    );
  }
}

/** A fresh cached answer, decoded for this caller; undefined when the cache has none (or is not used). */
export async function fromCache<Op extends OperationDef>(call: PreparedCall<Op>): Promise<ResponseOf<Op> | undefined> {
  if (!call.cache || call.options.cache === "refresh") return undefined;
  const hit = await call.cache.get(call.cacheKey);
  return (
    hit &&
    attachToAnswer(call.decode({ status: 200, ...hit }), call.provenanceRecord("cache", hit.receivedAt, hit.requestId))
  );
}

/**
 * Single flight: the answer of an identical call in flight, decoded for this caller. The leading call's
 * own timeout or abort is not this caller's: then it asks for itself (undefined).
 */
export async function joinInFlight<Op extends OperationDef>(
  call: PreparedCall<Op>,
): Promise<ResponseOf<Op> | undefined> {
  if (!call.shareable || call.options.cache === "refresh") return undefined;
  const pending = call.cache!.joinInFlight(call.cacheKey);
  if (!pending) return undefined;
  let shared: CacheEntry;
  try {
    shared = await raceAbort(pending, call.signal);
  } catch (error) {
    if (call.signal.aborted) throw call.stopped("");
    if (error instanceof TimeoutError || error instanceof AbortError) return undefined;
    throw error;
  }
  return attachToAnswer(
    call.decode({ status: 200, ...shared }),
    call.provenanceRecord("live", shared.receivedAt, shared.requestId),
  );
}

/** Attempts until one succeeds, one fails for good, or the deadline leaves no room for another. */
export async function attempts(call: PreparedCall): Promise<Received> {
  const { retry, op } = call;
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(call, attempt);
    if ("text" in outcome) return outcome;
    const { failure, retryable, retryAfterMs } = outcome;
    if (!retryable || attempt > retry.limit) throw failure;
    if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) throw failure;
    const delayMs = retryAfterMs ?? backoffDelayMs(attempt, retry);
    // Waiting past the deadline only turns a clear error into a timeout.
    if (call.config.now() - call.startedMs + delayMs >= call.timeoutMs) throw failure;
    retry.onRetry?.({ operation: op.name, attempt, delayMs, status: failure.status, error: failure });
    await sleep(delayMs, call.signal).catch(() => {
      throw call.stopped(" (waiting to retry)");
    });
  }
}

export interface AttemptFailure {
  failure: RiskPortalError;
  retryable: boolean;
  retryAfterMs?: number;
}

/**
 * One attempt: a cassette answers first; what it cannot answer goes to the server (and is recorded),
 * unless replaying. Returns the success, or the failure and whether it may be retried; throws what must
 * end the call at once (local faults — a cassette's are CassetteErrors naming the file — the deadline).
 */
export async function attemptOnce(call: PreparedCall, attempt: number): Promise<Received | AttemptFailure> {
  const { cassette } = call.config;
  const replayed = cassette?.take(call.request());
  if (!replayed && cassette && !cassette.records) throw cassette.miss(call.op.name, call.request(), call.details());
  let status: number | undefined;
  const sendsBefore = call.sends;
  try {
    const response = replayed ? replayResponse(replayed) : await exchange(call);
    status = response.status;
    const refused = !replayed && response.ok ? refuseNonJson(call, response) : undefined;
    if (refused) await refused;
    const streamed = call.sink !== undefined && response.ok && !replayed && !cassette;
    const text = streamed
      ? (await streamBody(call, response), "")
      : response.ok
        ? decodeUtf8((await readBody(response, call.maxResponseBytes)).bytes)
        : await readErrorText(call, response);
    const receivedAt = replayed?.receivedAt ?? new Date(call.config.now()).toISOString();
    if (!replayed && cassette) record(call, response, text, receivedAt);
    const requestId = response.headers.get(HEADERS.requestId) ?? undefined;
    if (response.ok) return { status: response.status, text, receivedAt, requestId, replayed, streamed };
    return httpFailure(call, response, text, requestId);
  } catch (error) {
    if (error instanceof SinkFailure) throw error.error;
    if (error instanceof BodyTooLarge || error instanceof InvalidUtf8) throw bodyFailure(call, error, status);
    if (error instanceof RiskPortalError) {
      // A token request that failed in transit: this attempt sent nothing, so even a write may try again.
      if (error.operation === "token" && call.sends === sendsBefore && transientTokenFailure(error))
        return { failure: error, retryable: true };
      throw error;
    }
    if (call.signal.aborted) throw call.stopped(attempt > 1 ? ` (${attempt} attempts)` : "");
    if (replayed)
      throw new CassetteError(
        `${call.op.name}: the cassette ${cassette!.path} holds an exchange that cannot be replayed: ${(error as Error)?.message ?? error}`,
        call.details(),
        cassette!.path,
      );
    const violation = protocolViolation(error);
    if (violation) throw protocolFailure(call, error, violation, status);
    return {
      failure: transportFailure(call, error, status),
      retryable: isRetryable(call.op.retry, { networkError: error }, call.retry),
    };
  }
}

/**
 * An error answer's body as text, only to be shown: its first MiB is kept, and invalid UTF-8 in it is noted
 * with its offset. (A success answer's body is read against the call's size limit and decoded as strict
 * UTF-8, which throws BodyTooLarge or InvalidUtf8: in {@link attemptOnce}.)
 */
async function readErrorText(call: PreparedCall, response: Response): Promise<string> {
  const kept = Math.min(call.maxResponseBytes, ERROR_BODY_BYTES);
  const { bytes, truncated } = await readBody(response, kept, true);
  const { text, invalidAt } = decodeForDisplay(bytes);
  return `${text}${invalidAt === undefined ? "" : ` [not valid UTF-8 at byte ${invalidAt}]`}${truncated ? ` [cut at ${formatBytes(kept)}]` : ""}`;
}

/**
 * A success answer of a JSON operation must say JSON (or nothing): an HTML page that happens to parse is not
 * data. Undefined when it does (no promise, no await on the usual path), else the refusal.
 */
function refuseNonJson(call: PreparedCall, response: Response): Promise<never> | undefined {
  const type = response.headers.get("content-type");
  return type === null || JSON_TYPE.test(type) ? undefined : refuseAnswer(call, response, type);
}

async function refuseAnswer(call: PreparedCall, response: Response, type: string): Promise<never> {
  const { bytes, truncated } = await readBody(response, PREVIEW_BYTES, true);
  const preview = call.redactor.text(decodeForDisplay(bytes).text + (truncated ? "…" : ""));
  const after = call.outcomeUnknown(response.status);
  throw new ResponseValidationError(
    call.redactor.text(
      `${call.op.name}: the server answered HTTP ${response.status} with Content-Type ${type}, not JSON: ${preview}`,
    ) + after.note,
    call.details({ status: response.status, body: preview, ...after.extra }),
    [],
  );
}

/** A body refused as it was read: past the size limit, or not UTF-8. */
function bodyFailure(
  call: PreparedCall,
  refused: BodyTooLarge | InvalidUtf8,
  status: number | undefined,
): RiskPortalError {
  const after = call.outcomeUnknown(status);
  const details = call.details({ ...(status === undefined ? {} : { status }), ...after.extra });
  const name = call.op.name;
  if (refused instanceof InvalidUtf8)
    return new ResponseValidationError(
      `${name}: the response is not valid UTF-8 at byte ${refused.offset}: refused, not read with replacement characters.${after.note}`,
      details,
      [],
    );
  // A streamed answer is raised on the call (a client's limit does not lower a stream's); one held whole, on either, or streamed.
  const where = call.sink
    ? "on the call"
    : `on the call or the client${call.op.largeAnswer ? `, or ${call.op.largeAnswer.streamInstead}` : ""}`;
  const message =
    `${name}: the response passed its size limit of ${formatBytes(refused.limit)} (maxResponseBytes, counted decompressed): reading stopped after ${formatBytes(refused.received)}. ` +
    `If the answer is meant to be this large, to raise it: { maxResponseBytes: ${nextLimit(refused.limit)} } ${where}.${after.note}`;
  return new ResponseTooLargeError(message, details, refused.limit);
}

/** An answer that broke HTTP: its own error, never retried (see {@link protocolViolation}). */
function protocolFailure(call: PreparedCall, error: unknown, code: string, status: number | undefined): ProtocolError {
  const origin = call.redactor.text(new URL(call.url).origin);
  const what = violationText(code);
  const after = call.outcomeUnknown(status);
  return new ProtocolError(
    `${call.op.name}: the answer from ${origin} broke HTTP: ${what} (${code}); not retried: a proxy or the service sends what no HTTP client accepts.${after.note}`,
    call.details({ cause: call.redactor.cause(error), ...(status === undefined ? {} : { status }), ...after.extra }),
    code,
  );
}

/** `4 MiB`, `1.5 GiB`, `64 KiB`, `200 bytes`. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ["GiB", 2 ** 30],
    ["MiB", 2 ** 20],
    ["KiB", 2 ** 10],
  ] as const) {
    if (n >= size) return `${Number((n / size).toFixed(2))} ${unit}`;
  }
  return `${n} bytes`;
}

/** A limit to suggest: four times the one that was passed, in whole MiB. */
function nextLimit(limit: number): number {
  return Math.ceil((limit * 4) / 2 ** 20) * 2 ** 20;
}

/**
 * One HTTP exchange: the request and the same-origin redirects it meets (src/client/redirect.ts: fetch
 * never follows one, `redirect: "manual"`; every hop's headers are built afresh, the credential added
 * again), with a single refresh-and-resend when the server says 401.
 */
export async function exchange(call: PreparedCall): Promise<Response> {
  for (;;) {
    const sent = { used: "" };
    const first: Hop = { url: call.url, method: call.op.method, body: call.body };
    let response: Response;
    try {
      // The first hop sent here, the redirects (rare) followed in their own function.
      response = await sendHop(call, sent, first);
      call.finalUrl = undefined;
      if (isRedirect(response, first)) {
        const followed = await followRedirects(first, response, (hop) => sendHop(call, sent, hop));
        response = followed.response;
        call.finalUrl = followed.hop.url === call.url ? undefined : followed.hop.url;
      }
    } catch (error) {
      if (error instanceof RedirectRefused) throw redirectFailure(call, error);
      throw error;
    }
    // One refresh and one more request after a 401; the second answer is the answer, whatever it is.
    if (response.status !== 401 || call.refreshed || !(await refreshAfterUnauthorized(call, sent.used)))
      return response;
    await discardBody(response);
  }
}

/** After a 401: the credential `used` renewed (true) or not renewable (false), once per call. */
async function refreshAfterUnauthorized(call: PreparedCall, used: string): Promise<boolean> {
  call.refreshed = true;
  try {
    return await call.config.auth.refreshAfterUnauthorized(used, call.signal, call.deadlineAtMs);
  } catch (error) {
    // The server had refused the write (401): a token that cannot be renewed leaves it not applied.
    if (call.write && error instanceof RiskPortalError && error.outcome === undefined)
      throw withOutcome(error, "not-applied", ` The server had answered HTTP 401: ${call.op.name} was not applied.`);
    throw error;
  }
}

/** One hop of {@link exchange}: its headers built afresh, the credential added (and noted in `sent`). */
function sendHop(call: PreparedCall, sent: { used: string }, hop: Hop): Promise<Response> {
  const headers = requestHeaders(call, hop.body !== undefined);
  const applied = call.config.auth.apply(headers, call.signal, call.deadlineAtMs);
  // A static credential is a string: no promise to wait for.
  if (typeof applied !== "string") return applied.then((used) => fetchHop(call, sent, hop, headers, used));
  return fetchHop(call, sent, hop, headers, applied);
}

/** The request of one hop leaves, with its credential (noted in `sent`). */
function fetchHop(
  call: PreparedCall,
  sent: { used: string },
  hop: Hop,
  headers: Record<string, string>,
  used: string,
): Promise<Response> {
  sent.used = used;
  // Aborted before it left (a signal aborted already, or while a token was fetched): nothing was sent.
  if (call.signal.aborted) throw call.signal.reason;
  call.sends++;
  return call.config.fetch(hop.url, {
    method: hop.method,
    headers,
    body: hop.body,
    signal: call.signal,
    redirect: "manual",
  });
}

/** A hop's request headers, names in lower case (one spelling per header): the client's, the call's, the body's type. */
function requestHeaders(call: PreparedCall, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...call.config.headers };
  for (const [k, v] of Object.entries(call.options.headers ?? {})) headers[k.toLowerCase()] = v;
  if (hasBody) headers["content-type"] = REQUEST_CONTENT_TYPE;
  return headers;
}

/**
 * A redirect not followed, as the error that says so. A write's outcome: `not-applied` (a redirect says
 * "not here"), but `unknown` after a 303 (how a server points to the result of a write it has done) or
 * after a fetch that followed the redirect itself.
 */
export function redirectFailure(call: PreparedCall, refused: RedirectRefused): RedirectError {
  const mayHave = refused.status === 303 || refused.reason === "followed by fetch";
  const outcome = call.write ? { outcome: mayHave ? ("unknown" as const) : ("not-applied" as const) } : {};
  const note = call.write && mayHave ? ` The server may have applied it.${call.howToCheck()}` : "";
  const location = refused.location === undefined ? undefined : call.redactor.text(refused.location);
  const message = redirectMessage(call.op.name, refused, call.redactor, "baseUrl") + note;
  return new RedirectError(message, { ...call.details(outcome), status: refused.status }, location);
}

/** An HTTP error answer as the error that says what the server said, retryable or not, with its Retry-After. */
export function httpFailure(
  call: PreparedCall,
  response: Response,
  text: string,
  requestId: string | undefined,
): AttemptFailure {
  const retryAfterMs = parseRetryAfterMs(response.headers.get(HEADERS.retryAfter), Date.now());
  const unknown = call.write && response.status >= 500;
  const failure = errorFromResponse({
    ...call.details(call.write ? { outcome: unknown ? "unknown" : "not-applied" } : {}),
    status: response.status,
    statusText: response.statusText,
    requestId,
    body: call.redactor.value(parseBody(text)),
    ...(unknown
      ? { note: `The server failed after receiving the request: it may have applied it.${call.howToCheck()}` }
      : {}),
  });
  if (failure instanceof RateLimitError) failure.retryAfterMs = retryAfterMs;
  return { failure, retryable: isRetryable(call.op.retry, { status: response.status }, call.retry), retryAfterMs };
}

/** A transport failure: whether the request left, and whether an answer had started, say what it means. */
export function transportFailure(call: PreparedCall, error: unknown, status: number | undefined): NetworkError {
  const { redactor, op, write } = call;
  const reason = redactor.text(describeNetworkError(error));
  const origin = redactor.text(new URL(call.url).origin);
  const cause = redactor.cause(error);
  if (call.sends === 0 || neverReachedServer(error)) {
    return new NetworkError(
      `${op.name} failed: could not reach ${origin}: ${reason}${write ? "; nothing was sent" : ""}`,
      call.details({ cause, ...(write ? { outcome: "not-applied" as const } : {}) }),
    );
  }
  const answered = status === undefined ? {} : { status };
  if (!write) {
    const when = status === undefined ? "before an answer arrived" : `while the HTTP ${status} answer was arriving`;
    return new NetworkError(
      `${op.name} failed: the connection to ${origin} broke ${when}: ${reason}`,
      call.details({ cause, ...answered }),
    );
  }
  const what =
    status === undefined
      ? `the request was sent to ${origin} but its answer was lost (${reason}): the server may have applied it.`
      : `the server answered HTTP ${status} but the connection broke before the answer's body arrived (${reason}): ${status < 300 ? "it has most likely applied it" : "it may have applied it"} (the body would have said).`;
  return new NetworkError(
    `${op.name}: outcome unknown — ${what}${call.howToCheck()} Re-sending it unchecked may apply it twice.`,
    call.details({ cause, outcome: "unknown", ...answered }),
  );
}

/** Records a live exchange; a cassette that cannot be written is a local fault, and says what the server did. */
export function record(call: PreparedCall, response: Response, text: string, receivedAt: string): void {
  const cassette = call.config.cassette!;
  try {
    cassette.record(
      call.op.name,
      call.request(),
      { status: response.status, statusText: response.statusText, headers: response.headers, text },
      receivedAt,
      call.redactor,
    );
  } catch (error) {
    const done =
      call.write && response.ok
        ? ` The server answered HTTP ${response.status}: ${call.op.name} was applied; do not re-send it.`
        : "";
    const why = call.redactor.text((error as Error)?.message ?? String(error));
    const refused: WriteOutcome = response.status >= 500 ? "unknown" : "not-applied";
    const outcome = call.write ? { outcome: done ? ("applied" as const) : refused } : {};
    throw new CassetteError(
      `${call.op.name}: could not record to the cassette ${cassette.path}: ${why}.${done}`,
      call.details({ ...outcome, cause: call.redactor.cause(error) }),
      cassette.path,
    );
  }
}

/** Keeps a live answer in the cache (unless a change emptied it since `generation`); a change empties it. */
export async function remember(call: PreparedCall, got: Received, generation: number | undefined): Promise<void> {
  if (call.cache && !got.replayed)
    await call.cache.set(call.cacheKey, { ...entryOf(got), text: call.redactor.text(got.text) }, generation);
  // A call that changes the service's data may change what reads return.
  if (call.op.mutates && call.config.cache) {
    await call.config.cache.clear().catch((error: Error) => {
      throw new ConfigurationError(
        `${call.op.name} was applied (HTTP ${got.status}), but ${error.message}: reads may return answers from before it. Do not re-send it; clear or remove the cache directory.`,
        call.details({ outcome: "applied", cause: error }),
      );
    });
  }
}

function entryOf(got: Received): CacheEntry {
  return {
    text: got.text,
    receivedAt: got.receivedAt,
    ...(got.requestId === undefined ? {} : { requestId: got.requestId }),
  };
}

/** The token endpoint could not be reached, or failed with a status worth another try. */
function transientTokenFailure(error: RiskPortalError): boolean {
  return error instanceof NetworkError || (error.status !== undefined && DEFAULT_RETRY.statuses.includes(error.status));
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

/** What a write the server reported failed did: its outcome, and for best effort what was stored. */
export interface FailedWrite {
  outcome: WriteOutcome;
  report?: WriteReport;
}

/** `bond_data[3]: …`: a message about one record of an array of the request. */
const RECORD_MESSAGE = /^\s*([A-Za-z_$][\w$]*)\[(\d+)\]/;

/**
 * What a best-effort write's answer says was stored, when every message names one record of the same
 * array of the request (`bond_data[3]: unknown bond`): the records named were rejected, the others
 * stored. Undefined when any message names no record (the answer does not say).
 */
export function bestEffortReport(body: Record<string, unknown>, messages: readonly string[]): WriteReport | undefined {
  let field: string | undefined;
  const rejected = new Map<number, string[]>();
  for (const message of messages) {
    const named = RECORD_MESSAGE.exec(message);
    if (!named || (field !== undefined && named[1] !== field)) return undefined;
    const records = body[named[1]!];
    const index = Number(named[2]);
    if (!Array.isArray(records) || index >= records.length) return undefined;
    field = named[1];
    const said = rejected.get(index) ?? [];
    said.push(message);
    rejected.set(index, said);
  }
  if (field === undefined) return undefined;
  const sent = (body[field] as unknown[]).length;
  const list = [...rejected].sort((a, b) => a[0] - b[0]).map(([index, said]) => ({ index, messages: said }));
  return { sent, stored: sent - rejected.size, rejected: list };
}

/** The required top-level fields of an object schema, by schema (undefined: not an object schema). */
const requiredFields = new WeakMap<object, readonly string[] | undefined>();

/** `json` is an object with every required top-level field of `schema` (an object schema). */
function topLevelFits(schema: OperationDef["response"], json: unknown): boolean {
  if (!requiredFields.has(schema)) {
    const shape = (schema as { shape?: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape;
    const required = shape && Object.keys(shape).filter((key) => !shape[key]!.safeParse(undefined).success);
    requiredFields.set(schema, required);
  }
  const required = requiredFields.get(schema);
  return required !== undefined && isRecord(json) && required.every((key) => key in json);
}

/**
 * A success answer's body, parsed and checked against the operation's schema. What an error adds for a
 * write (the outcome, how to check) is worked out only when there is an error: this runs on every answer.
 */
function decodeResponse<Op extends OperationDef>(
  call: PreparedCall<Op>,
  got: { status: number; text: string; requestId?: string },
): ResponseOf<Op> {
  const { op, redactor, options } = call;
  const text = got.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const { note, details } = decodeFailure(call, got);
    const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new ResponseValidationError(
      redactor.text(`${op.name}: the server's response is not JSON${text ? `: ${preview}` : " (empty body)"}`) + note,
      { ...details, body: redactor.text(text) },
      [],
    );
  }
  const parsed =
    options.responseCheck === "top-level" && topLevelFits(op.response, json)
      ? { success: true as const, data: json }
      : checkResponse(op.response, json, text);
  if (!parsed.success) {
    const { note, details } = decodeFailure(call, got);
    const issues = toFieldIssues(parsed.error);
    throw new ResponseValidationError(
      redactor.text(`${op.name}: the server's response does not fit the schema — ${formatIssues(issues)}`) + note,
      { ...details, body: redactor.value(json) },
      issues,
    );
  }
  const data = parsed.data as ResponseOf<Op>;
  const outcome = data as { is_success?: boolean; error_messages?: string[] };
  if (op.outcome && outcome.is_success === false && options.throwOnFailure !== false) {
    const { note, details } = decodeFailure(call, got);
    const messages = redactor.value(outcome.error_messages ?? []);
    const failed = call.failedWrite(messages);
    throw new OperationFailedError(
      redactor.text(failureMessage(op.name, messages, failed, note)),
      { ...details, ...(failed ? { outcome: failed.outcome } : {}), body: redactor.value(json) },
      messages,
      failed?.report,
    );
  }
  return data;
}

/** What a decoding error of this answer says of the call. */
function decodeFailure(
  call: PreparedCall,
  got: { status: number; requestId?: string },
): { note: string; details: ErrorDetails } {
  const after = call.outcomeUnknown(got.status);
  return { note: after.note, details: call.details({ status: got.status, requestId: got.requestId, ...after.extra }) };
}

/** Up to `max` messages in one line, and how many more. */
export function listMessages(messages: readonly string[], max = 5): string {
  if (messages.length === 0) return "no message given";
  return messages.slice(0, max).join("; ") + (messages.length > max ? ` … and ${messages.length - max} more` : "");
}

/** A reported failure's message: what the server said, and what was stored (or that it is not known). */
function failureMessage(
  name: string,
  messages: readonly string[],
  failed: FailedWrite | undefined,
  note: string,
): string {
  const said = listMessages(messages);
  const report = failed?.report;
  if (report && report.stored > 0) {
    const indices = report.rejected.map((r) => r.index);
    const shown = indices.slice(0, 20).join(", ") + (indices.length > 20 ? ", …" : "");
    return (
      `${name} partially applied: ${report.stored} of the ${report.sent} records were stored, ${report.rejected.length} rejected — ${said}. ` +
      `The ${report.stored} stored are on the service now: re-sending the same request would store the ${report.stored} again; send only the rejected records (indices ${shown}), fixed.`
    );
  }
  if (report) return `${name} reported failure: none of the ${report.sent} records was stored (all rejected) — ${said}`;
  if (failed?.outcome === "unknown")
    return `${name} reported failure: ${said}. With use_best_effort the records not named may have been stored.${note}`;
  if (failed)
    return `${name} reported failure: ${said}. It was not applied (without use_best_effort a write is all or nothing).`;
  return `${name} reported failure: ${said}`;
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  }
}

/** `fetch failed` says little: the cause's code and message say what went wrong. */
function describeNetworkError(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    const message = e instanceof Error ? e.message : String(e);
    const code = (e as { code?: unknown }).code;
    parts.push(typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message);
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(": ");
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
