/**
 * The date a request asked for and the date its answer is for (wire assumption A23): the operations whose
 * answer carries the date the request named, where each keeps it, and the days both say. Read by the
 * frames adapters and batch fetchers (a warning on the table) and by the client's `dateMismatch: "error"`
 * step; nothing here runs on a call unless one of them asks.
 */
import { ANSWERED_DATE_FIELDS, type AnsweredDateField } from "./assumptions";
import { isRecord } from "./operation";

export { ANSWERED_DATE_FIELDS, type AnsweredDateField } from "./assumptions";

/** What one answer says of dates: the days asked, the days answered (UTC calendar days, `YYYY-MM-DD`). */
export interface AnsweredDates extends AnsweredDateField {
  readonly operation: string;
  /** The value of the request's subject field (`EUR`), when the operation has one. */
  readonly subjectValue?: string;
  /** The days the request asked for, in request order, each once; empty when it asked for none. */
  readonly asked: readonly string[];
  /** The days the answer is for, in answer order, each once (empty when it has no rows or no date). */
  readonly answered: readonly string[];
  /** The days answered that were not asked for: empty when the answer is for the dates asked. */
  readonly other: readonly string[];
}

/**
 * The UTC calendar day of a wire date or date-time (`2026-11-21`, `2026-11-21T00:00:00Z`,
 * `2026-11-20T23:00:00-05:00` → `2026-11-21`, as the simulator reads them), or undefined for anything else.
 */
export function utcDay(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().slice(0, 10);
}

function days(values: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    const day = utcDay(v);
    if (day !== undefined && !out.includes(day)) out.push(day);
  }
  return out;
}

/**
 * The values at `where` in `answer`: a path of keys, where `key[]` steps into each element of an array
 * (`report_infos[].pricing_date`); a missing step gives no value.
 */
function valuesAt(answer: unknown, where: string): unknown[] {
  let values: unknown[] = [answer];
  for (const step of where.split(".")) {
    const each = step.endsWith("[]");
    const key = each ? step.slice(0, -2) : step;
    values = values.flatMap((v) => {
      const next = isRecord(v) ? v[key] : undefined;
      return each ? (Array.isArray(next) ? next : []) : [next];
    });
  }
  return values;
}

/**
 * What `answer` (of `operation`, for the request `body`: as sent or in canonical form) says of the dates
 * asked and answered; undefined for operations without a date to compare ({@link ANSWERED_DATE_FIELDS}),
 * or when the request asked for no date.
 */
export function answeredDates(operation: string, body: unknown, answer: unknown): AnsweredDates | undefined {
  const spec = ANSWERED_DATE_FIELDS[operation];
  if (!spec || !isRecord(body) || !isRecord(answer)) return undefined;
  const plural = spec.plural === undefined ? undefined : body[spec.plural];
  const asked = days([body[spec.field], ...(Array.isArray(plural) ? plural : [])]);
  if (asked.length === 0) return undefined;
  const answered = days(valuesAt(answer, spec.where));
  const subject = spec.subject === undefined ? undefined : body[spec.subject];
  return {
    ...spec,
    operation,
    ...(typeof subject === "string" ? { subjectValue: subject } : {}),
    asked,
    answered,
    other: answered.filter((d) => !asked.includes(d)),
  };
}

/** `RateAsset EUR` / `GetReportInfos`: the operation and what it was asked about. */
export function answerLabel(dates: AnsweredDates): string {
  return dates.subjectValue === undefined ? dates.operation : `${dates.operation} ${dates.subjectValue}`;
}
