/** How a failed call of a batch is reported: the error's message (already free of secrets) and its HTTP status. */
import { CassetteMissError } from "../client/errors";
import { ConfigurationError, RiskPortalError } from "../errors";

/**
 * A replay that has no recorded answer is not one failed date among others: the whole notebook is out of
 * step with its cassette. Nor is a local fault (a corrupt cassette, a cache that cannot be written: a
 * `ConfigurationError`). Batch helpers throw it (the first one) instead of listing it as a failure.
 */
export function throwReplayMiss(settled: readonly PromiseSettledResult<unknown>[]): void {
  for (const result of settled) {
    if (
      result.status === "rejected" &&
      (result.reason instanceof CassetteMissError || result.reason instanceof ConfigurationError)
    )
      throw result.reason;
  }
}

export function describeFailure(reason: unknown): { error: string; status?: number } {
  if (reason instanceof RiskPortalError)
    return reason.status === undefined ? { error: reason.message } : { error: reason.message, status: reason.status };
  if (reason instanceof Error) return { error: reason.message || reason.name };
  return { error: String(reason) };
}

/** A date as a batch names it: an ISO string for a `Date`, else the caller's text as given. */
export function dateText(date: string | Date): string {
  return date instanceof Date ? (Number.isNaN(date.getTime()) ? "Invalid Date" : date.toISOString()) : String(date);
}
