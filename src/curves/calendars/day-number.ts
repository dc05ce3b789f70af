/**
 * Days as integers: a day number counts days since 1970-01-01 (0), so that a calendar steps, compares and
 * indexes days without Date objects. Conversions to and from the civil date are Howard Hinnant's
 * days_from_civil / civil_from_days (proleptic Gregorian), exact for every year the calendars cover.
 */
import { CurveError } from "../errors";

const DAY_MS = 86_400_000;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A day in the calendar's input form: `"YYYY-MM-DD"`, or a `Date` at 00:00 UTC. */
export type DateInput = string | Date;

/** Whether `year` is a Gregorian leap year. */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** The day number of year-month-day (month 1–12); no range check. */
export function dayNumber(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The civil date of a day number: year, month (1–12), day of month. */
export function civil(n: number): { year: number; month: number; day: number } {
  const z = n + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Day of the week of a day number: 0 Sunday … 6 Saturday, as `Date.getUTCDay`. */
export function weekday(n: number): number {
  return (((n + 4) % 7) + 7) % 7;
}

const pad2 = (v: number): string => (v < 10 ? `0${v}` : String(v));

/** The strings of day numbers already formatted (days 0–99 999: 1970–2243), so a day is formatted once. */
const FORMATTED: string[] = [];

/** `"YYYY-MM-DD"` of a day number. */
export function isoDay(n: number): string {
  const cached = FORMATTED[n];
  if (cached !== undefined) return cached;
  const { year, month, day } = civil(n);
  const text = `${year}-${pad2(month)}-${pad2(day)}`;
  if (n >= 0 && n < 100_000) FORMATTED[n] = text;
  return text;
}

/** The value of the ASCII digits of `s` in [from, to), or -1 when one is not a digit. */
function digits(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * The day number of a `"YYYY-MM-DD"` string or a `Date` at 00:00 UTC. Throws a {@link CurveError} naming
 * `argument` and the value for anything else: another format, a day that does not exist ("2026-02-30",
 * "2026-13-01"), an invalid Date or one with a time of day.
 */
export function parseDay(value: unknown, argument: string): number {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms))
      throw new CurveError(`${argument} is an invalid Date: expected "YYYY-MM-DD" or a Date at 00:00 UTC`, argument);
    if (ms % DAY_MS !== 0) {
      throw new CurveError(
        `${argument} ${value.toISOString()} is not at 00:00 UTC: a calendar takes a day ("YYYY-MM-DD" or a Date at midnight UTC), not a time`,
        argument,
      );
    }
    return ms / DAY_MS;
  }
  // the hot path: a well-formed day of an existing month, read without a regular expression
  if (typeof value === "string" && value.length === 10 && value.charCodeAt(4) === 45 && value.charCodeAt(7) === 45) {
    const [year, month, day] = [digits(value, 0, 4), digits(value, 5, 7), digits(value, 8, 10)];
    if (year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month))
      return dayNumber(year, month, day);
  }
  const m = typeof value === "string" ? ISO_DAY.exec(value) : null;
  if (!m) {
    throw new CurveError(
      `${argument} ${describe(value)} is not a date: expected "YYYY-MM-DD" or a Date at 00:00 UTC`,
      argument,
    );
  }
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12)
    throw new CurveError(`${argument} ${JSON.stringify(value)} has no month ${month}: months run 01–12`, argument);
  const last = daysInMonth(year, month);
  if (day < 1 || day > last) {
    throw new CurveError(
      `${argument} ${JSON.stringify(value)} does not exist: ${year}-${pad2(month)} has days 01–${last}`,
      argument,
    );
  }
  return dayNumber(year, month, day);
}

/** A value as an error message shows it: strings quoted, other things by type. */
export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || value === undefined) return String(value);
  if (typeof (value as { then?: unknown }).then === "function") return "(a Promise: did you forget `await`?)";
  if (typeof value === "object") return `(${value.constructor?.name ?? "object"})`;
  return `${String(value)} (${typeof value})`;
}

/**
 * Day of the year (1-based) of Easter Monday in `year`: Easter Sunday by the anonymous Gregorian
 * algorithm (Meeus/Jones/Butcher), plus one, as QuantLib's table of Easter Mondays holds it.
 */
export function easterMonday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return dayNumber(year, month, day) - dayNumber(year, 1, 1) + 2;
}
