/**
 * One base class and a small family. Every error carries the operation, the HTTP status when there was
 * one, the request id when the server sent one, and the parsed (redacted) body. `errorFromResponse` is
 * the one place that picks a class for an HTTP failure.
 *
 * One file per group: the client's errors are here; each room's beside its code (the cassette's, the
 * transaction tables', the vol model's, the PNG export's, the notebook runner's). All extend
 * {@link RiskPortalError}: `err instanceof RiskPortalError` is the one catch-all (test/client/errors.test.ts
 * walks the exports to keep it so).
 */
import type { FieldIssue } from "../api/operation";
import { problemDetails, type ProblemDetails } from "../api/common";
import { RiskPortalError, type ErrorDetails, type WriteOutcome } from "../errors";

export { ConfigurationError, RiskPortalError, type ErrorDetails, type WriteOutcome } from "../errors";
export { CassetteError, CassetteMissError } from "../record/errors";

/** A record a best-effort write's server rejected: its index in the request's records, and what it said. */
export interface RejectedRecord {
  /** Index in the request's records (`bond_data`, `equity_vol_curves`). */
  index: number;
  /** The server's messages about it. */
  messages: string[];
  /** frames.upload*: the rows of the source the record was built from. */
  rows?: number[];
}

/** What the answer of a failed best-effort write says was stored: counts, and the records rejected. */
export interface WriteReport {
  /** Records sent. */
  sent: number;
  /** Records the server stored (`sent` minus those rejected). */
  stored: number;
  /** The records rejected, by index, with the server's messages. */
  rejected: RejectedRecord[];
}

/** A request argument is invalid; nothing was sent. `issues` name each field path and the reason. */
export class RequestValidationError extends RiskPortalError {
  constructor(
    message: string,
    details: ErrorDetails,
    readonly issues: readonly FieldIssue[],
  ) {
    super(message, details);
  }
}

/** The server's response does not fit the schema; `issues` name each field path. */
export class ResponseValidationError extends RiskPortalError {
  constructor(
    message: string,
    details: ErrorDetails,
    readonly issues: readonly FieldIssue[],
  ) {
    super(message, details);
  }
}

/** The server answered with a non-success HTTP status. `problem` holds RFC 9457 problem details when sent. */
export class HttpError extends RiskPortalError {
  declare readonly status: number;
  readonly problem?: ProblemDetails;
  constructor(message: string, details: ErrorDetails & { status: number }, problem?: ProblemDetails) {
    super(message, details);
    this.problem = problem;
  }
}
/** 400: the server rejected the request as malformed or invalid. */
export class BadRequestError extends HttpError {}
/** 401: missing, invalid or expired credentials. */
export class AuthenticationError extends HttpError {}
/** 403: authenticated but not allowed. */
export class PermissionError extends HttpError {}
/** 404: e.g. an unknown tradable on `GetTradableBrief`. */
export class NotFoundError extends HttpError {}
/** 429: rate limited; `retryAfterMs` is the server's hint, when it gave one. */
export class RateLimitError extends HttpError {
  retryAfterMs?: number;
}
/** 5xx: the server failed. */
export class ServerError extends HttpError {}

/**
 * The operation ran but reported failure: `is_success` false, with the server's `error_messages`. When
 * the answer of a best-effort write names the records it rejected, `sent`, `stored` and `rejected` say
 * what was stored (`outcome` `partially-applied`, or `not-applied` when none was).
 */
export class OperationFailedError extends RiskPortalError {
  readonly sent?: number;
  readonly stored?: number;
  readonly rejected?: readonly RejectedRecord[];
  constructor(
    message: string,
    details: ErrorDetails,
    readonly errorMessages: readonly string[],
    report?: WriteReport,
  ) {
    super(message, details);
    if (report) {
      this.sent = report.sent;
      this.stored = report.stored;
      this.rejected = report.rejected;
    }
  }
}

/** The call did not finish within its `timeoutMs` (retries included). */
export class TimeoutError extends RiskPortalError {
  constructor(
    message: string,
    details: ErrorDetails,
    readonly timeoutMs: number,
  ) {
    super(message, details);
  }
}

/** The caller's AbortSignal aborted the call; `cause` is the signal's reason. */
export class AbortError extends RiskPortalError {}

/**
 * A transport failure: the server could not be reached (DNS, refused) or the connection broke (reset,
 * a body cut off). `cause` has the original. For a write, `outcome` says whether it may have been applied.
 */
export class NetworkError extends RiskPortalError {}

/**
 * A redirect the client did not follow: to another origin (the credential was not sent there), without a
 * usable Location, or past the limit. `status` is the redirect's, `location` where it pointed (redacted).
 * Never retried. For a write, `outcome` is `not-applied`, except after a 303 (`unknown`: a server answers
 * 303 See Other after doing what was asked).
 */
export class RedirectError extends RiskPortalError {
  declare readonly status: number;
  readonly location?: string;
  constructor(message: string, details: ErrorDetails & { status: number }, location?: string) {
    super(message, details);
    this.location = location;
  }
}

/**
 * The answer passed its size limit (`maxResponseBytes`, counted on the decompressed bytes as they
 * arrive): reading stopped there, so a compression bomb or an endless body cannot fill memory. Never
 * retried (the next answer would be as large). `limit` is the limit in bytes.
 */
export class ResponseTooLargeError extends RiskPortalError {
  constructor(
    message: string,
    details: ErrorDetails,
    readonly limit: number,
  ) {
    super(message, details);
  }
}

/**
 * The answer broke HTTP: headers larger than the client accepts, a malformed status line or framing, a
 * corrupt compressed body. Not a connection that broke (that is a {@link NetworkError}), and never
 * retried: a proxy or the service sends what no client accepts. `code` is the platform's
 * (`UND_ERR_HEADERS_OVERFLOW`, `HPE_HEADER_OVERFLOW`, …).
 */
export class ProtocolError extends RiskPortalError {
  constructor(
    message: string,
    details: ErrorDetails,
    readonly code: string,
  ) {
    super(message, details);
  }
}

const STATUS_CLASSES: Record<number, typeof HttpError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  429: RateLimitError,
};

/**
 * Picks the error class for an HTTP failure and writes a message that says what the server said.
 * @example
 * ```ts
 * import { errorFromResponse } from "risk-portal-lab/internals";
 * const err = errorFromResponse({ operation: "RateAsset", status: 429, body: { title: "Too many requests" } }); // a RateLimitError
 * ```
 */
export function errorFromResponse(
  details: ErrorDetails & { status: number; statusText?: string; note?: string },
): HttpError {
  const Class = STATUS_CLASSES[details.status] ?? (details.status >= 500 ? ServerError : HttpError);
  const parsed = problemDetails.safeParse(details.body);
  const problem = parsed.success && (parsed.data.title || parsed.data.detail) ? parsed.data : undefined;
  let said = "";
  if (problem) said = [problem.title, problem.detail].filter(Boolean).join(": ");
  else if (typeof details.body === "string") said = details.body.slice(0, 300);
  else if (details.body !== undefined) said = shortJson(details.body);
  const head = `${details.operation} failed: HTTP ${details.status}${details.statusText ? ` ${details.statusText}` : ""}`;
  const message = `${head}${said ? ` — ${said}` : ""}${details.requestId ? ` (request id ${details.requestId})` : ""}${details.note ? `. ${details.note}` : ""}`;
  const { note: _note, ...rest } = details;
  return new Class(message, rest, problem);
}

/** A parsed body's first 300 characters as JSON; one nested too deep to write says so instead of overflowing the stack. */
function shortJson(body: unknown): string {
  try {
    return JSON.stringify(body).slice(0, 300);
  } catch {
    return `(a JSON ${Array.isArray(body) ? "array" : "value"} nested too deep to show)`;
  }
}

/**
 * The error as a copy that carries a write's `outcome` (and a note added to its message): for an error
 * thrown without one, e.g. a token request's, which may be shared by several calls and is not changed.
 */
export function withOutcome<E extends RiskPortalError>(error: E, outcome: WriteOutcome, note = ""): E {
  const copy = Object.create(Object.getPrototypeOf(error) as object) as E;
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(error));
  Object.defineProperty(copy, "outcome", { value: outcome, enumerable: true, configurable: true });
  if (note)
    Object.defineProperty(copy, "message", { value: `${error.message}${note}`, writable: true, configurable: true });
  return copy;
}

/**
 * `a.b: reason; c[2]: reason` — field issues in one line.
 * @example
 * ```ts
 * import { formatIssues } from "risk-portal-lab/internals";
 * formatIssues([{ path: "currency", message: "missing" }, { path: "surface.vols[3]", message: "must be > 0" }]);
 * // "currency: missing; surface.vols[3]: must be > 0"
 * ```
 */
export function formatIssues(issues: readonly FieldIssue[], max = 10): string {
  const shown = issues.slice(0, max).map((i) => `${i.path}: ${i.message}`);
  if (issues.length > max) shown.push(`… and ${issues.length - max} more`);
  return shown.join("; ");
}
