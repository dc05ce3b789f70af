/** The names a calendar goes by, and the roll conventions (kept apart from calendar.ts so the rules can name them). */

/** A holiday calendar: TARGET (EUR), US government bonds (USD), England & Wales (GBP), Tokyo (JPY), Zurich (CHF). */
export type CalendarName = "TARGET" | "US-GOVT" | "UK" | "JP" | "CH";

/**
 * A business-day convention, as QuantLib's: `following` (the next business day), `modified-following` (the
 * next, unless it is in the next month, then the previous), `preceding`, `modified-preceding` (the
 * previous, unless it is in the previous month, then the next), `unadjusted` (the day as it is).
 */
export type Roll = "following" | "modified-following" | "preceding" | "modified-preceding" | "unadjusted";

/** Every calendar name, in the order of the issue. */
export const CALENDARS: readonly CalendarName[] = Object.freeze(["TARGET", "US-GOVT", "UK", "JP", "CH"] as const);

/** Every roll convention. */
export const ROLLS: readonly Roll[] = Object.freeze([
  "following",
  "modified-following",
  "preceding",
  "modified-preceding",
  "unadjusted",
] as const);
