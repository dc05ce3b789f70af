/**
 * The one request pipeline every operation goes through: validate → response cache → cassette or
 * (auth → fetch with deadline and caller's signal → 401 refresh-and-resend once → record) → map
 * errors → retry reads → validate the response → attach its provenance.
 */
import { HEADERS, REQUEST_CONTENT_TYPE, type UnknownFieldsPolicy } from "../api/assumptions";
import type { Brand } from "../api/brand";
import { encodeRequest, toFieldIssues, type OperationDef, type ResponseOf } from "../api/operation";
import { MAX_TIMER_MS, raceAbort, type AuthProvider } from "./auth";
import type { CacheEntry, ResponseCache } from "./cache";
import { canonicalRequest, requestKey, type CanonicalRequest } from "./canonical";
import { replayResponse, type Cassette, type Exchange } from "./cassette";
import {
  AbortError,
  CassetteError,
  ConfigurationError,
  NetworkError,
  OperationFailedError,
  RateLimitError,
  RequestValidationError,
  ResponseValidationError,
  RiskPortalError,
  TimeoutError,
  errorFromResponse,
  formatIssues,
  type ErrorDetails,
} from "./errors";
import { attachProvenance, type Provenance, type ProvenanceSource } from "./provenance";
import type { Redactor } from "./redact";
import { DEFAULT_RETRY, backoffDelayMs, isRetryable, neverReachedServer, parseRetryAfterMs, resolveRetry, type RetryOptions } from "./retry";

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
}

/** What the server (or a cassette) answered with a success status, before decoding. */
interface Received {
  status: number;
  text: string;
  receivedAt: string;
  requestId?: string;
  /** The cassette exchange, when a cassette answered. */
  replayed?: Exchange;
}

/** Sends one operation and returns its validated response. */
export async function send<Op extends OperationDef>(config: PipelineConfig, op: Op, input: unknown, options: CallOptions = {}): Promise<ResponseOf<Op>> {
  const { redactor } = config;
  const timeoutMs = checkTimeout(options.timeoutMs ?? config.timeoutMs, op.name);
  const retry = callRetry(config.retry, options.retry, op.name);
  const encoded = encodeRequest(op, input, { brand: config.brand, unknownFields: options.unknownFields ?? config.unknownFields });
  let url = config.baseUrl + op.path;
  const write = op.retry === "write";
  // Error details are built only when something fails: redacting the URL on every call costs.
  const details = (extra?: Partial<ErrorDetails>): ErrorDetails => ({ operation: op.name, method: op.method, url: redactor.text(url), ...extra });
  if (!encoded.ok) {
    throw new RequestValidationError(redactor.text(`${op.name}: invalid request, nothing was sent — ${formatIssues(encoded.issues)}`), details(write ? { outcome: "not-applied" } : {}), redactor.value(encoded.issues));
  }
  if (encoded.query && Object.keys(encoded.query).length) url += `?${new URLSearchParams(encoded.query).toString()}`;
  const body = encoded.body === undefined ? undefined : JSON.stringify(encoded.body);
  const { cassette } = config;
  // The canonical request: computed once, and only when something needs it (cassette, cache, provenance).
  let canonical: CanonicalRequest | undefined;
  const request = () => (canonical ??= canonicalRequest(op.method, op.path, encoded.query, encoded.body));
  // Provenance names the request lazily: most responses never have theirs looked at.
  let masked: CanonicalRequest | undefined;
  const provenance = (source: ProvenanceSource, receivedAt: string, requestId: string | undefined, replayed?: Exchange): Provenance => ({
    operation: op.name,
    get request() {
      return (masked ??= redactor.mask(request()));
    },
    receivedAt,
    source,
    baseUrl: replayed ? cassette!.baseUrl : config.baseUrl,
    ...(requestId === undefined ? {} : { requestId }),
    ...(replayed ? { cassette: cassette!.path } : {}),
  });
  const decode = (got: { status: number; text: string; requestId?: string }) => decodeResponse(op, got.text, () => details({ status: got.status, requestId: got.requestId }), options, redactor);

  const cache = config.cache && op.cacheable && options.cache !== false ? config.cache : undefined;
  const cacheKey = cache ? `${config.baseUrl} ${config.auth.identity} ${requestKey(request())}` : "";
  if (cache && options.cache !== "refresh") {
    const hit = await cache.get(cacheKey);
    if (hit) return attachProvenance(decode({ status: 200, ...hit }), provenance("cache", hit.receivedAt, hit.requestId));
  }

  const startedMs = config.now();
  const deadline = new AbortController();
  const timer = Number.isFinite(timeoutMs) && timeoutMs <= MAX_TIMER_MS ? setTimeout(() => deadline.abort(), timeoutMs) : undefined;
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  /** Requests of this call that left for the server (a write's answer may then be lost, not its effect). */
  let sends = 0;
  const howToCheck = () => (op.whenOutcomeUnknown ? ` ${op.whenOutcomeUnknown}` : "");
  /** The call's own deadline or the caller's abort, as the error that says so. */
  const stopped = (waiting: string): RiskPortalError => {
    const unknown = write && sends > 0 ? { outcome: "unknown" as const } : {};
    const note = write && sends > 0 ? `; the request had been sent, so the server may have applied it.${howToCheck()}` : "";
    if (deadline.signal.aborted) return new TimeoutError(`${op.name} timed out after ${timeoutMs} ms${waiting}${note}`, details(unknown), timeoutMs);
    return new AbortError(`${op.name} was aborted by the caller${note}`, details({ ...unknown, cause: redactor.cause(options.signal?.reason) }));
  };

  /** One HTTP exchange, with a single refresh-and-resend when the server says 401. */
  const exchange = async (): Promise<Response> => {
    const attemptOnce = async () => {
      // A plain object with lower-case names: cheaper than a Headers instance, and one spelling per header.
      const headers: Record<string, string> = { ...config.headers };
      if (options.headers) for (const [k, v] of Object.entries(options.headers)) headers[k.toLowerCase()] = v;
      if (body !== undefined) headers["content-type"] = REQUEST_CONTENT_TYPE;
      const applied = config.auth.apply(headers, signal, startedMs + timeoutMs);
      const used = typeof applied === "string" ? applied : await applied;
      sends++;
      return { used, response: await config.fetch(url, { method: op.method, headers, body, signal }) };
    };
    const first = await attemptOnce();
    if (first.response.status !== 401 || refreshed) return first.response;
    refreshed = true;
    if (!(await config.auth.refreshAfterUnauthorized(first.used, signal, startedMs + timeoutMs))) return first.response;
    await first.response.body?.cancel().catch(() => undefined);
    return (await attemptOnce()).response;
  };
  let refreshed = false;

  /** Attempts until one succeeds, fails for good, or the deadline leaves no room for another. */
  const attempts = async (): Promise<Received> => {
    for (let attempt = 1; ; attempt++) {
      let failure: RiskPortalError;
      let retryable: boolean;
      let retryAfterMs: number | undefined;
      // A cassette answers first; what it cannot answer goes to the server (and is recorded), unless replaying.
      // Its faults are CassetteErrors naming the file: local, never retried against the server.
      const replayed = cassette?.take(request());
      if (!replayed && cassette && !cassette.records) throw cassette.miss(op.name, request(), details());
      let status: number | undefined;
      const sendsBefore = sends;
      try {
        const response = replayed ? replayResponse(replayed) : await exchange();
        status = response.status;
        const text = await response.text();
        const receivedAt = replayed?.receivedAt ?? new Date(config.now()).toISOString();
        if (!replayed && cassette) record(response, text, receivedAt);
        const requestId = response.headers.get(HEADERS.requestId) ?? undefined;
        if (response.ok) return { status: response.status, text, receivedAt, requestId, replayed };
        retryAfterMs = parseRetryAfterMs(response.headers.get(HEADERS.retryAfter), Date.now());
        const unknown = write && response.status >= 500;
        failure = errorFromResponse({
          ...details(write ? { outcome: unknown ? "unknown" : "not-applied" } : {}),
          status: response.status,
          statusText: response.statusText,
          requestId,
          body: redactor.value(parseBody(text)),
          ...(unknown ? { note: `The server failed after receiving the request: it may have applied it.${howToCheck()}` } : {}),
        });
        if (failure instanceof RateLimitError) failure.retryAfterMs = retryAfterMs;
        retryable = isRetryable(op.retry, { status: response.status }, retry);
      } catch (error) {
        if (error instanceof RiskPortalError) {
          // A token request that failed in transit: this attempt sent nothing, so even a write may try again.
          if (!(error.operation === "token" && sends === sendsBefore && transientTokenFailure(error))) throw error;
          failure = error;
          retryable = true;
        } else {
          if (signal.aborted) throw stopped(attempt > 1 ? ` (${attempt} attempts)` : "");
          if (replayed) throw new CassetteError(`${op.name}: the cassette ${cassette!.path} holds an exchange that cannot be replayed: ${(error as Error)?.message ?? error}`, details(), cassette!.path);
          failure = transportFailure(error, status);
          retryable = isRetryable(op.retry, { networkError: error }, retry);
        }
      }
      if (!retryable || attempt > retry.limit) throw failure;
      if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) throw failure;
      const delayMs = retryAfterMs ?? backoffDelayMs(attempt, retry);
      // Waiting past the deadline only turns a clear error into a timeout.
      if (config.now() - startedMs + delayMs >= timeoutMs) throw failure;
      retry.onRetry?.({ operation: op.name, attempt, delayMs, status: failure.status, error: failure });
      await sleep(delayMs, signal).catch(() => {
        throw stopped(" (waiting to retry)");
      });
    }
  };

  /** Records a live exchange; a cassette that cannot be written is a local fault, and says what the server did. */
  const record = (response: Response, text: string, receivedAt: string) => {
    try {
      cassette!.record(op.name, request(), { status: response.status, statusText: response.statusText, headers: response.headers, text }, receivedAt, redactor);
    } catch (error) {
      const done = write && response.ok ? ` The server answered HTTP ${response.status}: ${op.name} was applied; do not re-send it.` : "";
      const why = redactor.text((error as Error)?.message ?? String(error));
      throw new CassetteError(`${op.name}: could not record to the cassette ${cassette!.path}: ${why}.${done}`, details({ ...(done ? { outcome: "applied" as const } : {}), cause: redactor.cause(error) }), cassette!.path);
    }
  };

  /** A transport failure: whether the request left, and whether an answer had started, say what it means. */
  const transportFailure = (error: unknown, status: number | undefined): NetworkError => {
    const reason = redactor.text(describeNetworkError(error));
    const origin = redactor.text(new URL(url).origin);
    const cause = redactor.cause(error);
    if (sends === 0 || neverReachedServer(error)) return new NetworkError(`${op.name} failed: could not reach ${origin}: ${reason}${write ? "; nothing was sent" : ""}`, details({ cause, ...(write ? { outcome: "not-applied" as const } : {}) }));
    if (!write) {
      const when = status === undefined ? "before an answer arrived" : `while the HTTP ${status} answer was arriving`;
      return new NetworkError(`${op.name} failed: the connection to ${origin} broke ${when}: ${reason}`, details({ cause, ...(status === undefined ? {} : { status }) }));
    }
    const what =
      status === undefined
        ? `the request was sent to ${origin} but its answer was lost (${reason}): the server may have applied it.`
        : `the server answered HTTP ${status} but the connection broke before the answer's body arrived (${reason}): ${status < 300 ? "it has most likely applied it" : "it may have applied it"} (the body would have said).`;
    return new NetworkError(`${op.name}: outcome unknown — ${what}${howToCheck()} Re-sending it unchecked may apply it twice.`, details({ cause, outcome: "unknown", ...(status === undefined ? {} : { status }) }));
  };

  /** A success: decoded for this caller, stored in the cache, the cache emptied after a write. */
  const finish = async (got: Received, generation: number | undefined): Promise<ResponseOf<Op>> => {
    const data = decode(got);
    if (cache && !got.replayed) await cache.set(cacheKey, { text: redactor.text(got.text), receivedAt: got.receivedAt, ...(got.requestId === undefined ? {} : { requestId: got.requestId }) }, generation);
    // A call that changes the service's data may change what reads return.
    if (op.mutates && config.cache) {
      await config.cache.clear().catch((error: Error) => {
        throw new ConfigurationError(`${op.name} was applied (HTTP ${got.status}), but ${error.message}: reads may return answers from before it. Do not re-send it; clear or remove the cache directory.`, details({ outcome: "applied", cause: error }));
      });
    }
    return attachProvenance(data, provenance(got.replayed ? "cassette" : "live", got.receivedAt, got.requestId, got.replayed));
  };

  try {
    // Single flight: identical cacheable reads in flight at once share one request (and one cache write).
    const shareable = cache && !cassette;
    if (shareable && options.cache !== "refresh") {
      const pending = cache.joinInFlight(cacheKey);
      if (pending) {
        let shared: CacheEntry | undefined;
        try {
          shared = await raceAbort(pending, signal);
        } catch (error) {
          if (signal.aborted) throw stopped("");
          // The leading call's own deadline or abort is not this caller's: it asks for itself.
          if (!(error instanceof TimeoutError || error instanceof AbortError)) throw error;
        }
        if (shared) return attachProvenance(decode({ status: 200, ...shared }), provenance("live", shared.receivedAt, shared.requestId));
      }
    }
    const generation = cache?.generation;
    const answer = attempts();
    if (shareable) cache.lead(cacheKey, answer.then((got) => (decode(got), { text: got.text, receivedAt: got.receivedAt, ...(got.requestId === undefined ? {} : { requestId: got.requestId }) })));
    return await finish(await answer, generation);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** The token endpoint could not be reached, or failed with a status worth another try. */
function transientTokenFailure(error: RiskPortalError): boolean {
  return error instanceof NetworkError || (error.status !== undefined && DEFAULT_RETRY.statuses.includes(error.status));
}

/** The call's deadline: a positive number of milliseconds, or Infinity for none. Checked before anything is sent. */
function checkTimeout(value: unknown, operation: string): number {
  if (typeof value === "number" && value > 0) return value;
  throw new ConfigurationError(`${operation}: timeoutMs must be a number of milliseconds > 0 (Infinity for no deadline), got ${typeof value === "number" ? String(value) : JSON.stringify(value)}; nothing was sent`, { operation });
}

function callRetry(base: RetryOptions, call: CallOptions["retry"], operation: string): RetryOptions {
  if (call === undefined) return base;
  try {
    return resolveRetry(base, call);
  } catch (error) {
    throw new ConfigurationError(`${operation}: ${(error as Error).message}; nothing was sent`, { operation });
  }
}

function decodeResponse<Op extends OperationDef>(op: Op, text: string, details: () => ErrorDetails, options: CallOptions, redactor: Redactor): ResponseOf<Op> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new ResponseValidationError(redactor.text(`${op.name}: the server's response is not JSON${text ? `: ${preview}` : " (empty body)"}`), { ...details(), body: redactor.text(text) }, []);
  }
  const parsed = op.response.safeParse(json);
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error);
    throw new ResponseValidationError(redactor.text(`${op.name}: the server's response does not fit the schema — ${formatIssues(issues)}`), { ...details(), body: redactor.value(json) }, issues);
  }
  const data = parsed.data as ResponseOf<Op>;
  const outcome = data as { is_success?: boolean; error_messages?: string[] };
  if (op.outcome && outcome.is_success === false && options.throwOnFailure !== false) {
    const messages = outcome.error_messages ?? [];
    const said = messages.length ? messages.slice(0, 5).join("; ") + (messages.length > 5 ? ` … and ${messages.length - 5} more` : "") : "no message given";
    throw new OperationFailedError(redactor.text(`${op.name} reported failure: ${said}`), { ...details(), body: redactor.value(json) }, redactor.value(messages));
  }
  return data;
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
