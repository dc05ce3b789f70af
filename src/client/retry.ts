/**
 * Retry timing: which failures are worth another attempt, how long to wait (exponential, capped,
 * jittered), and what the server's `Retry-After` says. Pure functions; the pipeline sleeps.
 */
import type { RetryClass } from "../api/assumptions";

export interface RetryInfo {
  operation: string;
  /** The attempt that just failed (1 = the first try). */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** The failure: an HTTP status, or the error of a network failure. */
  status?: number;
  error?: unknown;
}

export interface RetryOptions {
  /**
   * Retries after the first attempt (0 disables). Default 4: with 20% of attempts failing at random,
   * 0.2⁵ = 0.03% of reads still fail (with 2 retries it was 0.8%), and the waits (about 0.3 + 0.6 + 1.2 +
   * 2.4 s) stay well inside the default 60 s deadline.
   */
  limit: number;
  /** Delay before the first retry; doubles each time. Default 300 ms. */
  baseDelayMs: number;
  /** Cap of the exponential delay. Default 10 000 ms. */
  maxDelayMs: number;
  /** Share of the delay taken off at random (0 = none, 0.25 = up to a quarter shorter). Default 0.25. */
  jitter: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown. Default 60 000 ms. */
  maxRetryAfterMs: number;
  /** HTTP statuses worth a retry. Default 408, 429, 500, 502, 503, 504. */
  statuses: readonly number[];
  /** Called before each wait, e.g. to print "retrying in 2 s (HTTP 503)". */
  onRetry?: (info: RetryInfo) => void;
  /** Source of randomness for the jitter, in [0, 1). Default Math.random. */
  random?: () => number;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = Object.freeze({
  limit: 4,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  jitter: 0.25,
  maxRetryAfterMs: 60_000,
  statuses: Object.freeze([408, 429, 500, 502, 503, 504]),
});

/** Merges caller options over the defaults; `false` means no retries. */
export function resolveRetry(...layers: (Partial<RetryOptions> | false | undefined)[]): RetryOptions {
  let out: RetryOptions = { ...DEFAULT_RETRY };
  for (const layer of layers) {
    if (layer === false) out = { ...out, limit: 0 };
    else if (layer) out = { ...out, ...layer };
  }
  if (!Number.isInteger(out.limit) || out.limit < 0)
    throw new RangeError(`retry.limit must be a whole number >= 0, got ${out.limit}`);
  if (!(out.jitter >= 0 && out.jitter <= 1)) throw new RangeError(`retry.jitter must be in [0, 1], got ${out.jitter}`);
  return out;
}

/**
 * Exponential backoff for the retry after `attempt` failed attempts: base·2^(attempt−1), capped, jittered down.
 * @example
 * ```ts
 * import { backoffDelayMs, DEFAULT_RETRY } from "risk-portal-lab/internals";
 * backoffDelayMs(3, DEFAULT_RETRY); // at most 300 ms·2² = 1.2 s, jittered down by up to a quarter
 * ```
 */
export function backoffDelayMs(attempt: number, options: RetryOptions): number {
  const raw = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(raw * (1 - options.jitter * random()));
}

/** RFC 9110 §5.6.7 HTTP-date: IMF-fixdate, or the obsolete RFC 850 and asctime forms. */
const HTTP_DATE =
  /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * `Retry-After` as milliseconds from `nowMs`: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Undefined when absent or malformed (a negative number, `"soon"`: the client's own backoff applies
 * then); never negative.
 * @example
 * ```ts
 * import { parseRetryAfterMs } from "risk-portal-lab/internals";
 * parseRetryAfterMs("5", Date.now());                                      // 5000
 * parseRetryAfterMs("Fri, 20 Nov 2026 09:30:05 GMT", Date.parse("2026-11-20T09:30:00Z")); // 5000
 * ```
 */
export function parseRetryAfterMs(header: string | null | undefined, nowMs: number): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  // RFC 9110: delta-seconds = 1*DIGIT. A fraction is tolerated; a sign is not (-5 is no date in 2001).
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Error codes meaning the connection was never made, so even a write cannot have reached the server. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** Whether a network failure proves the request never left (walks the `cause` chain). */
export function neverReachedServer(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NOT_SENT_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Parser codes that mean the connection ended early (a broken connection, not a malformed answer). */
const EARLY_END_CODES = new Set(["HPE_INVALID_EOF_STATE", "HPE_CLOSED_CONNECTION"]);

/**
 * The code of a failure that means the answer broke HTTP rather than the connection: oversized headers
 * (undici's `UND_ERR_HEADERS_OVERFLOW`, Node's `HPE_HEADER_OVERFLOW` under node-fetch), a malformed
 * answer (llhttp's other `HPE_*` codes), a corrupt compressed body (`Z_DATA_ERROR`); undefined otherwise.
 */
export function protocolViolation(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (code === "UND_ERR_HEADERS_OVERFLOW" || code === "Z_DATA_ERROR") return code;
      if (code.startsWith("HPE_") && !EARLY_END_CODES.has(code)) return code;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What a {@link protocolViolation} code says about the answer, for its error message. */
export function violationText(code: string): string {
  if (/HEADER.*OVERFLOW/.test(code)) return "its headers are larger than the client accepts";
  return code.startsWith("Z_") ? "its compressed body is corrupt" : "it is not well-formed HTTP";
}

/**
 * A17: may this failure be retried? Reads: network errors and the retry statuses. Writes: only when the
 * request provably never reached the server (connection refused, DNS failure).
 */
export function isRetryable(
  retryClass: RetryClass,
  failure: { status?: number; networkError?: unknown },
  options: RetryOptions,
): boolean {
  if (failure.status !== undefined) return retryClass === "read" && options.statuses.includes(failure.status);
  return retryClass === "read" || neverReachedServer(failure.networkError);
}
