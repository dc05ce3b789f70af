/**
 * Where a tenor lands on a business-day calendar: the curve's `{ calendar, roll, spotLag }` options
 * checked, and a tenor string turned into its rolled day.
 */
import { calendar as calendarNamed, calendarFor, ROLLS, type Calendar, type Roll } from "./calendar";
import { CurveError } from "./errors";
import { parseTenor, tenorText } from "./tenor";

/** The default roll of tenor dates on a calendar. */
export const DEFAULT_ROLL: Roll = "modified-following";

/** The curve options that put tenors on business days (see `CurveOptions`). */
export interface TenorDateOptions {
  /**
   * A business-day calendar for tenor dates: a `Calendar` (`curves.calendar("TARGET")`), a calendar name
   * (`"TARGET"`, `"US-GOVT"`, `"UK"`, `"JP"`, `"CH"`) or a currency with one (`"EUR"` → TARGET). Default
   * none: tenors are unadjusted calendar arithmetic from the market date, as before.
   */
  calendar?: Calendar | string;
  /** How a week/month/year tenor's landing day is rolled to a business day. Default `"modified-following"`; with a calendar only. */
  roll?: Roll;
  /** Business days from the market date to spot, where tenors start. Default 0; with a calendar only. */
  spotLag?: number;
}

/** A checked {@link TenorDateOptions} with a calendar, and the spot day it gives. */
export interface TenorDateRule {
  calendar: Calendar;
  roll: Roll;
  spotLag: number;
  /** Spot, ms at 00:00 UTC. */
  spot: number;
  /** The market date, ms at 00:00 UTC. */
  marketDay: number;
}

const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const ms = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** A string calendar option as a Calendar: a name, else a currency; a CurveError naming `options.calendar` otherwise. */
function resolveCalendar(value: unknown): Calendar {
  if (typeof value === "object" && value !== null && typeof (value as Calendar).advance === "function")
    return value as Calendar;
  if (typeof value !== "string") {
    const got = value === null ? "null" : typeof value;
    throw new CurveError(
      `options.calendar must be a Calendar (curves.calendar("TARGET")), a calendar name or a currency such as "EUR", got ${got}`,
      "options.calendar",
    );
  }
  try {
    return calendarNamed(value);
  } catch (byName) {
    try {
      return calendarFor(value);
    } catch (byCurrency) {
      throw new CurveError(
        `options.calendar ${JSON.stringify(value)} is neither a calendar nor a currency with one: ${(byName as Error).message}; ${(byCurrency as Error).message}`,
        "options.calendar",
      );
    }
  }
}

/** The options' `roll` and `spotLag` (their defaults when absent), each checked. */
function checkRollAndLag(options: TenorDateOptions): { roll: Roll; spotLag: number } {
  const roll = options.roll ?? DEFAULT_ROLL;
  if (!ROLLS.includes(roll)) {
    throw new CurveError(
      `options.roll must be ${ROLLS.map((r) => `"${r}"`).join(", ")}; got ${JSON.stringify(roll)}`,
      "options.roll",
    );
  }
  const spotLag = options.spotLag ?? 0;
  if (!Number.isSafeInteger(spotLag) || spotLag < 0) {
    throw new CurveError(
      `options.spotLag must be a whole number of business days >= 0 (e.g. 2 for T+2), got ${String(spotLag)}`,
      "options.spotLag",
    );
  }
  return { roll, spotLag };
}

/**
 * The rule tenors of a curve of market day `marketDay` (ms at 00:00 UTC) follow, or null without a
 * calendar. Spot is the market date rolled following (the next business day when it is a holiday),
 * then `spotLag` business days on. A `roll` or `spotLag` without a calendar is an error: it would do nothing.
 */
export function tenorDateRule(options: TenorDateOptions, marketDay: number): TenorDateRule | null {
  if (options.calendar === undefined) {
    const given = options.roll !== undefined ? "roll" : options.spotLag !== undefined ? "spotLag" : null;
    if (given === null) return null;
    throw new CurveError(
      `options.${given} needs options.calendar (e.g. { calendar: "TARGET" } or the currency, "EUR"): without one, tenors are not rolled`,
      `options.${given}`,
    );
  }
  const calendar = resolveCalendar(options.calendar);
  const { roll, spotLag } = checkRollAndLag(options);
  const spot = onCalendar("market_date", () =>
    spotLag === 0 ? calendar.adjust(iso(marketDay), "following") : calendar.advance(iso(marketDay), `${spotLag}D`),
  );
  return { calendar, roll, spotLag, spot: ms(spot), marketDay };
}

/** `f()`, its CurveError re-thrown naming `argument` (the calendar names its own arguments: date, tenor). */
function onCalendar(argument: string, f: () => string): string {
  try {
    return f();
  } catch (error) {
    if (!(error instanceof CurveError)) throw error;
    throw new CurveError(`${argument}: ${error.message}`, argument);
  }
}

/**
 * The day (ms at 00:00 UTC) `tenor` lands on under `rule`: `"ON"` is the overnight deposit, traded for
 * today, so one business day after the market date (rolled following) whatever the spot lag; `"<n>D"` are
 * business days from spot, `"<n>W"`, `"<n>M"`, `"<n>Y"` calendar weeks, months and years from spot rolled
 * by `rule.roll` (no end-of-month rule). The tenor is checked first ({@link parseTenor}, naming `argument`).
 */
export function rolledTenorDay(rule: TenorDateRule, tenor: string, argument: string): number {
  parseTenor(tenor, argument);
  const overnight = /^\s*ON\s*$/i.test(tenor);
  const start = overnight ? rule.calendar.adjust(iso(rule.marketDay), "following") : iso(rule.spot);
  const text = overnight ? "1D" : tenorText(tenor);
  return ms(onCalendar(argument, () => rule.calendar.advance(start, text, { roll: rule.roll, endOfMonth: false })));
}

/** The day `months` months after spot, rolled: a fixed leg's payment day. */
export function rolledMonthDay(rule: TenorDateRule, months: number): number {
  return ms(
    onCalendar("tenor", () =>
      rule.calendar.advance(iso(rule.spot), `${months}M`, { roll: rule.roll, endOfMonth: false }),
    ),
  );
}

/** `"2026-03-02"`: a day (ms at 00:00 UTC) as the tables show it. */
export function dayText(day: number): string {
  return iso(day);
}
