/**
 * What a market's holiday rule sees of a day, and the weekday names the rules read by. A rule is a
 * predicate over these facts, written as QuantLib 1.29 writes its calendars (`isBusinessDay`), so that
 * the two can be read side by side; the calendar evaluates it once per day of a year, lazily.
 */

/** Weekdays as `Date.getUTCDay` numbers them. */
export const SUN = 0;
export const MON = 1;
export const TUE = 2;
export const WED = 3;
export const THU = 4;
export const FRI = 5;
export const SAT = 6;

/** One day, as a holiday rule reads it. */
export interface DayFacts {
  /** Calendar year. */
  y: number;
  /** Month, 1 (January) … 12 (December). */
  m: number;
  /** Day of the month, 1 … 31. */
  d: number;
  /** Day of the week, 0 Sunday … 6 Saturday. */
  w: number;
  /** Day of the year, 1 … 366. */
  dd: number;
  /** Day of the year of Easter Monday. */
  em: number;
}

/** A market's weekday closures: true when the (weekday) day is a holiday. Weekends are the calendar's. */
export type HolidayRule = (f: DayFacts) => boolean;

/** A closure, or an opening, that is not (or not the same as) QuantLib 1.29's, with why. */
export interface QuantLibDifference {
  /** The day, `"YYYY-MM-DD"`. */
  readonly date: string;
  /** What QuantLib 1.29 says of the day; this library says the opposite. */
  readonly quantlib: "holiday" | "business day";
  /** Why this library differs, with the source. */
  readonly reason: string;
}
