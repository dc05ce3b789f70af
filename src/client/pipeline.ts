/**
 * The one request pipeline every operation goes through: validate → response cache → cassette or
 * (auth → fetch with deadline and caller's signal → 401 refresh-and-resend once → record) → map
 * errors → retry reads → validate the response → attach its provenance.
 */
import { HEADERS, REQUEST_CONTENT_TYPE, type UnknownFieldsPolicy } from "../api/assumptions";
import type { Brand } from "../api/brand";
import { encodeRequest, toFieldIssues, type OperationDef, type ResponseOf } from "../api/operation";
import type { AuthProvider } from "./auth";
import type { ResponseCache } from "./cache";
import { canonicalRequest, requestKey, type CanonicalRequest } from "./canonical";
import { replayResponse, type Cassette, type Exchange } from "./cassette";
import {
  AbortError,
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
import { backoffDelayMs, isRetryable, parseRetryAfterMs, resolveRetry, type RetryOptions } from "./retry";

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

/** Sends one operation and returns its validated response. */
export async function send<Op extends OperationDef>(config: PipelineConfig, op: Op, input: unknown, options: CallOptions = {}): Promise<ResponseOf<Op>> {
  const { redactor } = config;
  const encoded = encodeRequest(op, input, { brand: config.brand, unknownFields: options.unknownFields ?? config.unknownFields });
  let url = config.baseUrl + op.path;
  // Error details are built only when something fails: redacting the URL on every call costs.
  const details = (extra?: Partial<ErrorDetails>): ErrorDetails => ({ operation: op.name, method: op.method, url: redactor.text(url), ...extra });
  if (!encoded.ok) {
    throw new RequestValidationError(redactor.text(`${op.name}: invalid request, nothing was sent — ${formatIssues(encoded.issues)}`), details(), redactor.value(encoded.issues));
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

  const cache = config.cache && op.cacheable && options.cache !== false ? config.cache : undefined;
  const cacheKey = cache ? `${config.baseUrl} ${config.auth.identity} ${requestKey(request())}` : "";
  if (cache && options.cache !== "refresh") {
    const hit = await cache.get(cacheKey);
    if (hit) {
      const data = decodeResponse(op, hit.text, () => details({ status: 200, requestId: hit.requestId }), options, redactor);
      return attachProvenance(data, provenance("cache", hit.receivedAt, hit.requestId));
    }
  }

  const retry = options.retry === undefined ? config.retry : resolveRetry(config.retry, options.retry);
  const timeoutMs = options.timeoutMs ?? config.timeoutMs;
  const startedMs = config.now();
  const deadline = new AbortController();
  const timer = Number.isFinite(timeoutMs) ? setTimeout(() => deadline.abort(), timeoutMs) : undefined;
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  let refreshed = false;

  /** One HTTP exchange, with a single refresh-and-resend when the server says 401. */
  const exchange = async (): Promise<Response> => {
    const attemptOnce = async () => {
      // A plain object with lower-case names: cheaper than a Headers instance, and one spelling per header.
      const headers: Record<string, string> = { ...config.headers };
      if (options.headers) for (const [k, v] of Object.entries(options.headers)) headers[k.toLowerCase()] = v;
      if (body !== undefined) headers["content-type"] = REQUEST_CONTENT_TYPE;
      const applied = config.auth.apply(headers, signal);
      const used = typeof applied === "string" ? applied : await applied;
      return { used, response: await config.fetch(url, { method: op.method, headers, body, signal }) };
    };
    const first = await attemptOnce();
    if (first.response.status !== 401 || refreshed) return first.response;
    refreshed = true;
    if (!(await config.auth.refreshAfterUnauthorized(first.used, signal))) return first.response;
    await first.response.body?.cancel().catch(() => undefined);
    return (await attemptOnce()).response;
  };

  try {
    for (let attempt = 1; ; attempt++) {
      let failure: RiskPortalError;
      let retryAfterMs: number | undefined;
      try {
        // A cassette answers first; what it cannot answer goes to the server (and is recorded), unless replaying.
        const replayed = cassette?.take(request());
        if (!replayed && cassette && !cassette.records) throw cassette.miss(op.name, request(), details());
        const response = replayed ? replayResponse(replayed) : await exchange();
        const text = await response.text();
        const receivedAt = replayed?.receivedAt ?? new Date(config.now()).toISOString();
        if (!replayed && cassette) cassette.record(op.name, request(), { status: response.status, statusText: response.statusText, headers: response.headers, text }, receivedAt, redactor);
        const requestId = response.headers.get(HEADERS.requestId) ?? undefined;
        if (response.ok) {
          const data = decodeResponse(op, text, () => details({ status: response.status, requestId }), options, redactor);
          if (cache && !replayed) await cache.set(cacheKey, { text: redactor.text(text), receivedAt, ...(requestId === undefined ? {} : { requestId }) });
          // A write may change what reads return.
          if (op.retry === "write" && config.cache) await config.cache.clear();
          return attachProvenance(data, provenance(replayed ? "cassette" : "live", receivedAt, requestId, replayed));
        }
        retryAfterMs = parseRetryAfterMs(response.headers.get(HEADERS.retryAfter), Date.now());
        failure = errorFromResponse({ ...details(), status: response.status, statusText: response.statusText, requestId, body: redactor.value(parseBody(text)) });
        if (failure instanceof RateLimitError) failure.retryAfterMs = retryAfterMs;
        if (!isRetryable(op.retry, { status: response.status }, retry)) throw failure;
      } catch (error) {
        if (error instanceof RiskPortalError) throw error;
        if (deadline.signal.aborted) {
          throw new TimeoutError(`${op.name} timed out after ${timeoutMs} ms${attempt > 1 ? ` (${attempt} attempts)` : ""}`, details(), timeoutMs);
        }
        if (options.signal?.aborted) throw new AbortError(`${op.name} was aborted by the caller`, details({ cause: redactor.cause(options.signal.reason) }));
        const reason = redactor.text(describeNetworkError(error));
        failure = new NetworkError(`${op.name} failed: could not reach ${redactor.text(new URL(url).origin)}: ${reason}`, details({ cause: redactor.cause(error) }));
        if (!isRetryable(op.retry, { networkError: error }, retry)) throw failure;
      }
      if (attempt > retry.limit) throw failure;
      if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) throw failure;
      const delayMs = retryAfterMs ?? backoffDelayMs(attempt, retry);
      // Waiting past the deadline only turns a clear error into a timeout.
      if (config.now() - startedMs + delayMs >= timeoutMs) throw failure;
      retry.onRetry?.({ operation: op.name, attempt, delayMs, status: failure.status, error: failure });
      await sleep(delayMs, signal).catch(() => {
        if (deadline.signal.aborted) throw new TimeoutError(`${op.name} timed out after ${timeoutMs} ms (waiting to retry)`, details(), timeoutMs);
        throw new AbortError(`${op.name} was aborted by the caller`, details({ cause: redactor.cause(options.signal?.reason) }));
      });
    }
  } finally {
    if (timer) clearTimeout(timer);
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
