/**
 * Tenors (`"ON"`, `"1W"`, `"3M"`, `"18M"`, `"10Y"`) and dates: a tenor is measured from the curve's market
 * date by calendar arithmetic, then turned into years ACT/365, as the service measures its maturities.
 */
import { CurveError } from "./errors";

const DAY_MS = 86_400_000;
/** ACT/365: one year is 365 days, whatever the calendar year. */
export const DAYS_PER_YEAR = 365;

/** A tenor in calendar units: days (`ON` = `1D`, `1W` = 7 days) or months (`1Y` = 12 months). */
export interface TenorUnits {
  days: number;
  months: number;
}

/** A point on a curve: years (ACT/365) from the market date, or a tenor string such as `"2Y"`. */
export type TimeInput = number | string;

const TENOR = /^\s*(\d+)\s*([DWMY])\s*$/i;

/**
 * Reads a tenor (case-insensitive): `ON` (overnight, = `1D`), `<n>D`, `<n>W`, `<n>M`, `<n>Y` with `n` a
 * whole number > 0. Throws a {@link CurveError} naming `argument` on anything else.
 * @example
 * ```ts
 * curves.parseTenor("18M"); // { days: 0, months: 18 }
 * ```
 */
export function parseTenor(tenor: string, argument = "tenor"): TenorUnits {
  if (typeof tenor !== "string")
    throw new CurveError(`${argument} must be a tenor string such as "3M" or "10Y", got ${String(tenor)}`, argument);
  if (/^\s*ON\s*$/i.test(tenor)) return { days: 1, months: 0 };
  const m = TENOR.exec(tenor);
  if (!m) {
    throw new CurveError(
      `${argument} ${JSON.stringify(tenor)} is not a tenor: expected "ON" or a whole number followed by D, W, M or Y (e.g. "1W", "3M", "10Y")`,
      argument,
    );
  }
  const n = Number(m[1]);
  if (!(n > 0) || !Number.isSafeInteger(n))
    throw new CurveError(`${argument} ${JSON.stringify(tenor)} must be longer than 0`, argument);
  switch (m[2]!.toUpperCase()) {
    case "D":
      return { days: n, months: 0 };
    case "W":
      return { days: 7 * n, months: 0 };
    case "M":
      return { days: 0, months: n };
    default:
      return { days: 0, months: 12 * n };
  }
}

/** Milliseconds at 00:00 UTC of a calendar day. */
function utcDay(year: number, month: number, day: number): number {
  return Date.UTC(year, month, day);
}

/**
 * Adds calendar months to a day (ms at 00:00 UTC), clamping to the end of the target month: 2026-01-31
 * + 1M = 2026-02-28, 2028-01-31 + 1M = 2028-02-29, 2028-02-29 + 1Y = 2029-02-28. There is no
 * end-of-month rule (2026-02-28 + 1M = 2026-03-28) and no business-day adjustment.
 * @example
 * ```ts
 * import { addMonths } from "risk-portal-lab/curves";
 * new Date(addMonths(Date.UTC(2026, 0, 31), 1)).toISOString().slice(0, 10); // "2026-02-28": month-end clamped
 * ```
 */
export function addMonths(dayMs: number, months: number): number {
  const d = new Date(dayMs);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(utcDay(y, m + 1, 0)).getUTCDate();
  return utcDay(y, m, Math.min(d.getUTCDate(), last));
}

/**
 * The day a tenor lands on from `dayMs` (ms at 00:00 UTC): months first (clamped), then days.
 * @example
 * ```ts
 * import { addTenor } from "risk-portal-lab/curves";
 * new Date(addTenor(Date.UTC(2026, 10, 20), curves.parseTenor("18M"))).toISOString().slice(0, 10); // "2028-05-20"
 * ```
 */
export function addTenor(dayMs: number, tenor: TenorUnits): number {
  return addMonths(dayMs, tenor.months) + tenor.days * DAY_MS;
}

/** ACT/365 years between two days given as ms at 00:00 UTC. */
export function yearFraction(fromMs: number, toMs: number): number {
  return (toMs - fromMs) / (DAYS_PER_YEAR * DAY_MS);
}

/**
 * Years (ACT/365) from the market day `dayMs` to `t`: a number is taken as years already and must be
 * finite and >= 0; a string is a tenor (see {@link parseTenor}), its ACT/365 years rounded to 6 decimals
 * like the service's maturities. Throws a {@link CurveError} naming
 * `argument` otherwise.
 */
export function toYears(t: TimeInput, dayMs: number, argument = "t"): number {
  if (typeof t === "number") {
    if (Number.isNaN(t))
      throw new CurveError(`${argument} is NaN: expected years >= 0 or a tenor such as "2Y"`, argument);
    if (!Number.isFinite(t)) throw new CurveError(`${argument} must be finite years, got ${t}`, argument);
    if (t < 0) throw new CurveError(`${argument} must be >= 0 years (from the market date), got ${t}`, argument);
    return t;
  }
  // Rounded to 6 decimals as the service rounds its maturities: a tenor that lands on a pillar's expiry
  // is that pillar's maturity exactly (so `zeroRate("2Y")` is the 2Y pillar's rate when the 2Y swap
  // expires on the unadjusted date). The rounding moves t by less than 16 seconds.
  if (typeof t === "string") return roundYears(yearFraction(dayMs, addTenor(dayMs, parseTenor(t, argument))));
  throw new CurveError(
    `${argument} must be years (a number) or a tenor string such as "3M", got ${t === null ? "null" : typeof t}`,
    argument,
  );
}

/** Years to 6 decimals, as the service rounds `maturity`. */
export function roundYears(years: number): number {
  return Math.round(years * 1e6) / 1e6;
}

/**
 * `"2Y"` as given (trimmed, upper case), or `2.5` as `"2.5Y"`: how a tenor is labelled in tables and charts.
 * @example
 * ```ts
 * import { tenorText } from "risk-portal-lab/curves";
 * tenorText("3m"); // "3M"
 * tenorText(1.5);  // "1.5Y"
 * ```
 */
export function tenorText(t: TimeInput): string {
  return typeof t === "string" ? t.trim().toUpperCase() : `${Number(t.toPrecision(6))}Y`;
}

/** The calendar day (ms at 00:00 UTC) of a wire date-time: the date as written (`2026-11-20T00:00:00-05:00` → 2026-11-20). */
export function calendarDayOf(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  return m ? utcDay(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
}
