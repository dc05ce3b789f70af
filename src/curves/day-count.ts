/**
 * Day counts: the year fraction of an accrual period from its start and end dates, as QuantLib counts
 * them (checked day by day against QuantLib 1.29 in test/curves/day-count.test.ts).
 */
import { parseDay, type DateInput } from "./calendars/day-number";
import { CurveError } from "./errors";

const DAY_MS = 86_400_000;

/**
 * How a period's accrual is counted from its unadjusted start and end dates (ISDA 2006 §4.16):
 * - `ACT/365F`: actual days / 365 (QuantLib's `Actual365Fixed`);
 * - `ACT/360`: actual days / 360 (`Actual360`);
 * - `30/360`: US / Bond Basis (§4.16(f), QuantLib's `Thirty360(BondBasis)`): D1 = 31 becomes 30; D2 = 31
 *   becomes 30 only when D1 is then 30 (no end-of-February rule: Feb 28 → Mar 31 is 33 days; QuantLib's
 *   `Thirty360(USA)` has that rule and is not this one);
 * - `30E/360`: Eurobond basis (§4.16(g), `Thirty360(EurobondBasis)`): D1 = 31 and D2 = 31 both become 30
 *   (Feb 28 → Mar 31 is 32 days);
 * - `ACT/ACT ISDA`: the days in each calendar year / that year's length (365 or 366), summed
 *   (§4.16(b), `ActualActual(ISDA)`).
 */
export type DayCount = "ACT/365F" | "ACT/360" | "30/360" | "30E/360" | "ACT/ACT ISDA";

/** Every {@link DayCount}, in the order messages list them. */
export const DAY_COUNTS: readonly DayCount[] = ["ACT/365F", "ACT/360", "30/360", "30E/360", "ACT/ACT ISDA"];

/** `"ACT/365F", "ACT/360", … or "ACT/ACT ISDA"`: the choices, for messages. */
export function dayCountChoices(): string {
  return DAY_COUNTS.map((d) => `"${d}"`)
    .join(", ")
    .replace(/, ([^,]*)$/, " or $1");
}

/** `dayCount`, checked: a {@link CurveError} naming `argument` and listing the choices when it is not one. */
export function checkDayCount(dayCount: unknown, argument: string): DayCount {
  if (DAY_COUNTS.includes(dayCount as DayCount)) return dayCount as DayCount;
  const got = typeof dayCount === "string" ? JSON.stringify(dayCount) : String(dayCount);
  throw new CurveError(`${argument} must be ${dayCountChoices()}; got ${got}`, argument);
}

/** The day (ms at 00:00 UTC) of `"YYYY-MM-DD"` or a `Date` at 00:00 UTC; a {@link CurveError} naming `argument` otherwise. */
function dayOf(input: unknown, argument: string): number {
  return parseDay(input, argument) * DAY_MS;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** ACT/ACT ISDA from `a` to `b` (ms at 00:00 UTC), in QuantLib's order of operations (so to the last bit). */
function actActIsda(a: number, b: number): number {
  if (a === b) return 0;
  if (a > b) return -actActIsda(b, a);
  const y1 = new Date(a).getUTCFullYear();
  const y2 = new Date(b).getUTCFullYear();
  let sum = y2 - y1 - 1;
  sum += Math.round((Date.UTC(y1 + 1, 0, 1) - a) / DAY_MS) / (isLeap(y1) ? 366 : 365);
  sum += Math.round((b - Date.UTC(y2, 0, 1)) / DAY_MS) / (isLeap(y2) ? 366 : 365);
  return sum;
}

/** 30/360 (Bond Basis) or 30E/360 days from `a` to `b`, the formula on the dates as given (as QuantLib). */
function days360(a: Date, b: Date, eurobond: boolean): number {
  let d1 = a.getUTCDate();
  let d2 = b.getUTCDate();
  if (d1 === 31) d1 = 30;
  if (d2 === 31 && (eurobond || d1 === 30)) d2 = 30;
  return 360 * (b.getUTCFullYear() - a.getUTCFullYear()) + 30 * (b.getUTCMonth() - a.getUTCMonth()) + (d2 - d1);
}

/** The fraction from day `fromMs` to day `toMs` (ms at 00:00 UTC) under a checked `dayCount`. */
function fraction(dayCount: DayCount, fromMs: number, toMs: number): number {
  if (dayCount === "ACT/ACT ISDA") return actActIsda(fromMs, toMs);
  const days = Math.round((toMs - fromMs) / DAY_MS);
  if (dayCount === "ACT/365F") return days / 365;
  if (dayCount === "ACT/360") return days / 360;
  return days360(new Date(fromMs), new Date(toMs), dayCount === "30E/360") / 360;
}

/** A finite number of ms, or a {@link CurveError} naming `argument`. */
function checkMs(ms: unknown, argument: string): number {
  if (typeof ms === "number" && Number.isFinite(ms)) return ms;
  throw new CurveError(
    `${argument} must be a finite number of ms since 1970 (00:00 UTC of a day), got ${String(ms)}`,
    argument,
  );
}

/**
 * The accrual (year) fraction from `start` to `end` under `convention` (see {@link DayCount}), as QuantLib
 * 1.29 counts it: `dayCountFraction("2026-02-28", "2026-03-31", "30/360")` is 33/360. Dates are
 * `"YYYY-MM-DD"` or `Date`s at 00:00 UTC, on the dates as given (unadjusted). A start after the end gives
 * a negative fraction, as QuantLib's: −(end to start) for the ACT counts, the 30/360 formula on the
 * dates in the order given for the 30 ones (2026-03-31 → 2026-02-28 is −32/360 in 30/360, where
 * 2026-02-28 → 2026-03-31 is +33/360). Same day: 0.
 *
 * The older form `dayCountFraction(convention, fromMs, toMs)` (days as ms at 00:00 UTC) gives the same.
 * A date that is not a day ("2026-02-30"), a `Date` not at midnight UTC or an unknown convention is a
 * {@link CurveError} naming the argument (`start`, `end`, `convention`) and the value.
 * @example
 * ```ts
 * curves.dayCountFraction("2026-02-28", "2026-03-31", "30/360"); // 33/360
 * ```
 */
export function dayCountFraction(start: DateInput, end: DateInput, convention: DayCount): number;
/** The older form: the fraction from `fromMs` to `toMs` (days as ms at 00:00 UTC) under `dayCount`. */
export function dayCountFraction(dayCount: DayCount, fromMs: number, toMs: number): number;
export function dayCountFraction(a: DateInput, b: DateInput | number, c: DayCount | number): number {
  if (typeof b === "number") {
    return fraction(checkDayCount(a, "dayCount"), checkMs(b, "fromMs"), checkMs(c, "toMs"));
  }
  const from = dayOf(a, "start");
  const to = dayOf(b, "end");
  return fraction(checkDayCount(c, "convention"), from, to);
}
