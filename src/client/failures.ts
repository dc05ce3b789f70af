/**
 * What went wrong in an attempt, as the error that says so: an HTTP error answer, a transport failure, a
 * redirect not followed, a body refused as it was read, an answer that broke HTTP. Each says, for a write,
 * whether the server may have applied it.
 */
import { HEADERS } from "../api/assumptions";
import {
  AbortError,
  NetworkError,
  ProtocolError,
  RedirectError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  RiskPortalError,
  TimeoutError,
  errorFromResponse,
} from "./errors";
import { BodyTooLarge, InvalidUtf8 } from "./body";
import { RedirectRefused, redirectMessage } from "./redirect";
import { isRetryable, neverReachedServer, parseRetryAfterMs, violationText } from "./retry";
import type { PreparedCall } from "./call";
import { howToCheck, outcomeUnknown } from "./write-outcome";

export interface AttemptFailure {
  failure: RiskPortalError;
  retryable: boolean;
  retryAfterMs?: number;
}

/**
 * A redirect not followed, as the error that says so. A write's outcome: `not-applied` (a redirect says
 * "not here"), but `unknown` after a 303 (how a server points to the result of a write it has done) or
 * after a fetch that followed the redirect itself.
 */
export function redirectFailure(call: PreparedCall, refused: RedirectRefused): RedirectError {
  const mayHave = refused.status === 303 || refused.reason === "followed by fetch";
  const outcome = call.write ? { outcome: mayHave ? ("unknown" as const) : ("not-applied" as const) } : {};
  const note = call.write && mayHave ? ` The server may have applied it.${howToCheck(call)}` : "";
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
      ? { note: `The server failed after receiving the request: it may have applied it.${howToCheck(call)}` }
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
    `${op.name}: outcome unknown — ${what}${howToCheck(call)} Re-sending it unchecked may apply it twice.`,
    call.details({ cause, outcome: "unknown", ...answered }),
  );
}

/** A body refused as it was read: past the size limit, or not UTF-8. */
export function bodyFailure(
  call: PreparedCall,
  refused: BodyTooLarge | InvalidUtf8,
  status: number | undefined,
): RiskPortalError {
  const after = outcomeUnknown(call, status);
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
export function protocolFailure(
  call: PreparedCall,
  error: unknown,
  code: string,
  status: number | undefined,
): ProtocolError {
  const origin = call.redactor.text(new URL(call.url).origin);
  const what = violationText(code);
  const after = outcomeUnknown(call, status);
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

/** The call's own deadline or the caller's abort, as the error that says so (and what a write may have done). */
export function stopped(call: PreparedCall, waiting: string): RiskPortalError {
  const sent = call.write && call.sends > 0;
  const unknown = sent ? { outcome: "unknown" as const } : call.write ? { outcome: "not-applied" as const } : {};
  const note = sent
    ? `; the request had been sent, so the server may have applied it.${howToCheck(call)}`
    : call.write
      ? "; nothing was sent"
      : "";
  if (call.timedOut)
    return new TimeoutError(
      `${call.op.name} timed out after ${call.timeoutMs} ms${waiting}${note}`,
      call.details(unknown),
      call.timeoutMs,
    );
  return new AbortError(
    `${call.op.name} was aborted by the caller${note}`,
    call.details({ ...unknown, cause: call.redactor.cause(call.options.signal?.reason) }),
  );
}
