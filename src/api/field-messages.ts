/**
 * The words for a bad field, written once: the client's request validation, the simulator's 400s (both
 * through `toFieldIssues`), the CSV and records path (the uploads room) and the date readers of frames,
 * curves and vol say the same thing. Each names the real problem: a day that does not exist
 * ("2026-11-31: November has 30 days"), a currency in lower case ("eur: currency codes are upper case:
 * EUR"), a field left out ("missing").
 *
 * Everything here runs only once a value has been refused (zod calls a schema's `error` function only
 * for an issue), so a request that passes pays nothing for the better words.
 */
import type { z } from "zod";
import { daysInMonth, digits } from "./date-text";

/** What a required field left out (or `undefined`) is called, after its path: `currency: missing`. */
export const MISSING = "missing";

/** A `Date` whose time is NaN (`new Date("nope")`, `new Date(NaN)`): it prints as "Invalid Date". */
export const INVALID_DATE =
  "an Invalid Date (a Date object holding no time: the text or numbers it was made from are not a date)";

/** The general words for a date-time that is not one, when no part of it can be named. */
export const DATE_TIME_FORMAT = "expected an ISO 8601 date-time with an offset, e.g. 2026-11-20T00:00:00Z";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Parse options that keep each issue's input, so that {@link issueMessage} can tell a field left out. */
const REPORT_INPUT = { reportInput: true } as const;

/**
 * The issues of a value `schema` has refused, each with its input. A second parse, only for a value
 * already refused: the first one (on every request) stays as lean as zod makes it.
 */
export function refusedIssues(schema: z.ZodType, value: unknown, first: z.ZodError): z.core.$ZodIssue[] {
  return schema.safeParse(value, REPORT_INPUT).error?.issues ?? first.issues;
}

/** True when the issue is about a value that is not there (`undefined`), as opposed to one of the wrong type. */
export function isMissing(issue: z.core.$ZodIssue): boolean {
  return (
    (issue.code === "invalid_type" || issue.code === "invalid_union") &&
    "input" in issue &&
    (issue as { input?: unknown }).input === undefined
  );
}

/** The message for one issue: {@link MISSING} for a field left out, else the schema's own words. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  return isMissing(issue) ? MISSING : issue.message;
}

/**
 * What is wrong with a date or date-time text whose digits are in place but name no instant: the day
 * ("2026-11-31: November has 30 days", "2026-02-29: February 2026 has 28 days"), the month ("2026-13-01:
 * month 13 does not exist") or the time ("…T24:00:00Z: hour 24 does not exist (00–23)"). `undefined`
 * when the text is not laid out as `YYYY-MM-DD[Thh:mm[:ss]…]`, or nothing in it is out of range.
 */
export function impossibleDate(text: string): string | undefined {
  if (text.length < 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (year < 0 || month < 0 || day < 0) return undefined;
  const date = text.slice(0, 10);
  if (month < 1 || month > 12) return `${date}: month ${text.slice(5, 7)} does not exist`;
  if (day < 1) return `${date}: day ${text.slice(8, 10)} does not exist`;
  const days = daysInMonth(year, month);
  if (day > days) return `${date}: ${MONTHS[month - 1]}${month === 2 ? ` ${text.slice(0, 4)}` : ""} has ${days} days`;
  if (text.length < 16 || text.charCodeAt(13) !== 58) return undefined;
  const parts = [
    ["hour", digits(text, 11, 13), 23],
    ["minute", digits(text, 14, 16), 59],
    ["second", text.charCodeAt(16) === 58 ? digits(text, 17, 19) : -1, 59],
  ] as const;
  for (const [name, value, max] of parts) {
    if (value > max) return `${text}: ${name} ${String(value).padStart(2, "0")} does not exist (00–${max})`;
  }
  return undefined;
}

/**
 * What is wrong with a date a caller gave, when more than its format can be named: a day, month or time
 * that does not exist, or an Invalid Date. `undefined` otherwise (the caller's general words stand).
 */
export function namedDateProblem(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? INVALID_DATE : undefined;
  return typeof value === "string" ? impossibleDate(value.trim()) : undefined;
}

/** The message for a value the date-time schema refused: {@link MISSING}, {@link INVALID_DATE}, the impossible part, or the format. */
export function dateTimeMessage(input: unknown): string {
  if (input === undefined) return MISSING;
  if (input instanceof Date) return INVALID_DATE;
  if (typeof input === "string") return impossibleDate(input.trim()) ?? DATE_TIME_FORMAT;
  return "expected a Date or an ISO 8601 date-time string";
}

/**
 * The message for a value the currency-code schema refused: lower case ("eur: currency codes are upper
 * case: EUR") and spaces (`" USD": a currency code has no spaces: USD`) are named with the code to write.
 */
export function currencyMessage(input: unknown): string {
  if (input === undefined) return MISSING;
  if (typeof input === "string") {
    const code = input.trim();
    if (/^[A-Za-z]{3}$/.test(code)) {
      if (code !== input) return `${JSON.stringify(input)}: a currency code has no spaces: ${code.toUpperCase()}`;
      return `${input}: currency codes are upper case: ${input.toUpperCase()}`;
    }
  }
  return `expected a 3-letter ISO 4217 currency code such as USD, got ${shown(input)}`;
}

/**
 * True when `message` already shows the value it is about, so a caller need not add ", got …": it quotes
 * it, or it starts with its date (a date-only text goes through the schema as midnight UTC, and the
 * message names the date the user wrote, "2026-11-31: November has 30 days").
 */
export function namesValue(message: string, input: unknown): boolean {
  return message.includes(String(input)) || (typeof input === "string" && message.startsWith(`${input.slice(0, 10)}:`));
}

/** A value as a message quotes it: JSON, cut at 40 characters. */
function shown(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
