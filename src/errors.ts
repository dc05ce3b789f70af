/**
 * The base of the library's one error family, in a module of its own so that every room may import it
 * without importing the client: `err instanceof RiskPortalError` is the one catch-all. The families stay
 * in their rooms (the client's in client/errors.ts, the table's in table/errors.ts, …).
 */

export interface ErrorDetails {
  /** The spec's operation name (`GetVol`), or `token` for the OAuth2 token endpoint. */
  operation: string;
  method?: string;
  /** URL without credentials. */
  url?: string;
  status?: number;
  requestId?: string;
  /** The parsed response body (JSON, or text when it was not JSON), secrets masked. */
  body?: unknown;
  cause?: unknown;
  /** For writes: what is known of the call's effect on the server (see {@link WriteOutcome}). */
  outcome?: WriteOutcome;
}

/**
 * What a failed write did on the server, as far as the client can know:
 * - `not-applied`: the request provably never reached the server, or the server refused it (4xx, or
 *   `is_success: false` without `use_best_effort`: all or nothing);
 * - `partially-applied`: with `use_best_effort`, the server stored some records and rejected others
 *   (`OperationFailedError`'s `stored`, `rejected`): re-sending the whole request stores those again;
 * - `unknown`: it went out, but its answer was lost (connection broken, timeout, 5xx), or the answer does
 *   not say which records were stored: the server may have applied it, and re-sending it may apply it twice;
 * - `applied`: the server answered success, but something on this machine failed afterwards.
 */
export type WriteOutcome = "not-applied" | "partially-applied" | "unknown" | "applied";

/**
 * Base of every error this library throws on purpose — the client's, and the frames', the vol model's,
 * the plots' and the notebook runner's: `err instanceof RiskPortalError` is the one catch-all.
 */
export class RiskPortalError extends Error {
  readonly operation: string;
  readonly method?: string;
  readonly url?: string;
  readonly status?: number;
  readonly requestId?: string;
  readonly body?: unknown;
  /** Writes only: whether the server applied it (`unknown` means it may have: check before re-sending). */
  readonly outcome?: WriteOutcome;

  constructor(message: string, details: ErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.operation = details.operation;
    this.method = details.method;
    this.url = details.url;
    this.status = details.status;
    this.requestId = details.requestId;
    this.body = details.body;
    if (details.outcome !== undefined) this.outcome = details.outcome;
  }
}

/** The client's configuration is incomplete or contradictory (e.g. a missing environment variable). */
export class ConfigurationError extends RiskPortalError {}
