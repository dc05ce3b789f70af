/**
 * `dateMismatch`: what the client does with an answer for another date than the one its request asked
 * for (a curve asked for a Saturday and answered with Friday's, A23). `warn`, the default, returns it as
 * it came: the frames built from it say so (frames/answered-dates.ts), and the check costs a call nothing.
 * `error` refuses it with a {@link DateMismatchError}: one step after decoding, for the three operations
 * whose answers carry the date asked ({@link ANSWERED_DATE_FIELDS}).
 */
import { ANSWERED_DATE_FIELDS, answeredDates } from "../api/answered-dates";
import { ConfigurationError, RiskPortalError, type ErrorDetails } from "./errors";

/** The choices of `dateMismatch`. */
export const DATE_MISMATCH = ["warn", "error"] as const;
/** `warn` (default): return the answer, frames built from it carry a warning; `error`: throw {@link DateMismatchError}. */
export type DateMismatchPolicy = (typeof DATE_MISMATCH)[number];

/**
 * An answer is for another date than the request asked for, and `dateMismatch` is `"error"`. `asked` and
 * `answered` are UTC calendar days (`YYYY-MM-DD`); `field` is the request's date field.
 */
export class DateMismatchError extends RiskPortalError {
  readonly field: string;
  readonly asked: readonly string[];
  /** The days the answer is for that were not asked for. */
  readonly answered: readonly string[];
  constructor(
    message: string,
    details: ErrorDetails & { field: string; asked: readonly string[]; answered: readonly string[] },
  ) {
    super(message, details);
    this.field = details.field;
    this.asked = details.asked;
    this.answered = details.answered;
  }
}

/** The policy, checked: a value other than `warn` or `error` is a configuration error naming it. */
export function checkDateMismatch(value: unknown, operation = "configure"): DateMismatchPolicy {
  if (value === undefined) return "warn";
  if (!DATE_MISMATCH.includes(value as DateMismatchPolicy))
    throw new ConfigurationError(`dateMismatch must be "warn" or "error", got ${JSON.stringify(value)}`, { operation });
  return value as DateMismatchPolicy;
}

/** What the check needs of a call (a PreparedCall). */
export interface DateCheckedCall {
  readonly op: { readonly name: string };
  request(): { readonly body?: unknown };
  details(): ErrorDetails;
}

/**
 * The pipeline's step for `dateMismatch: "error"`: throws when `answer` is for another date than the call
 * asked for; returns without reading anything for the operations that carry no date.
 */
export function refuseOtherDate(call: DateCheckedCall, answer: unknown): void {
  if (ANSWERED_DATE_FIELDS[call.op.name] === undefined) return;
  const dates = answeredDates(call.op.name, call.request().body, answer);
  if (!dates || dates.other.length === 0) return;
  const message =
    `${dates.operation}: asked for ${dates.field} ${dates.asked.join(", ")}, answered with ${dates.other.join(", ")} ` +
    `(${dates.where}); refused (dateMismatch: "error"; with "warn", the default, the answer is returned and a ` +
    `frame built from it carries a warning naming both dates)`;
  throw new DateMismatchError(message, {
    ...call.details(),
    field: dates.field,
    asked: dates.asked,
    answered: dates.other,
  });
}
