/**
 * Every day where this library's calendars differ from QuantLib 1.29's, with why: the one place these
 * live. The calendars apply this table over the QuantLib 1.29 rules (the files beside this one), so the
 * rules read as QuantLib's and each correction is a line here. The newest QuantLib (lballabio/QuantLib,
 * master, 2026) is the reference for "official" where it has corrected 1.29; for the rest the source is named.
 */
import type { CalendarName } from "../calendar-names";
import type { QuantLibDifference } from "./rules";

const GOOD_FRIDAY_NFP =
  "Good Friday on the day the BLS publishes March's payrolls (first Friday of April): SIFMA recommends an early " +
  "close (12:00 ET), not a full close, and has done so since 1996 (SIFMA press releases of 2012, 2015, 2026: " +
  '"consistent with past practice"); the newest QuantLib (PR #2004) has the same rule, 1.29 only knew 2015';
const GOOD_FRIDAY_NFP_FUTURE = `${GOOD_FRIDAY_NFP}; a future year follows the same rule`;

const open = (date: string, reason: string): QuantLibDifference => ({ date, quantlib: "holiday", reason });
const closed = (date: string, reason: string): QuantLibDifference => ({ date, quantlib: "business day", reason });

/** Where each calendar differs from QuantLib 1.29, by calendar; `quantlib` says what QuantLib 1.29 has. */
export const QUANTLIB_DIFFERENCES: Readonly<Record<CalendarName, readonly QuantLibDifference[]>> = {
  TARGET: [],
  "US-GOVT": [
    closed(
      "1994-04-27",
      "national day of mourning for President Nixon: US stock, bond and commodity markets closed (Chicago Tribune, 1994-04-26)",
    ),
    open("1996-04-05", GOOD_FRIDAY_NFP),
    open("1999-04-02", GOOD_FRIDAY_NFP),
    closed(
      "2001-09-11",
      "attacks on the World Trade Center: the Bond Market Association closed the bond market; Treasuries traded again on 2001-09-13",
    ),
    closed("2001-09-12", "after the attacks of 2001-09-11: bond market closed; Treasuries traded again on 2001-09-13"),
    open("2007-04-06", GOOD_FRIDAY_NFP),
    open("2010-04-02", GOOD_FRIDAY_NFP),
    open("2012-04-06", GOOD_FRIDAY_NFP),
    open("2021-04-02", GOOD_FRIDAY_NFP),
    open("2023-04-07", GOOD_FRIDAY_NFP),
    open("2026-04-03", GOOD_FRIDAY_NFP),
    open("2034-04-07", GOOD_FRIDAY_NFP_FUTURE),
    open("2037-04-03", GOOD_FRIDAY_NFP_FUTURE),
    open("2042-04-04", GOOD_FRIDAY_NFP_FUTURE),
    open("2045-04-07", GOOD_FRIDAY_NFP_FUTURE),
    open("2048-04-03", GOOD_FRIDAY_NFP_FUTURE),
    open("2053-04-04", GOOD_FRIDAY_NFP_FUTURE),
    open("2064-04-04", GOOD_FRIDAY_NFP_FUTURE),
    open("2067-04-01", GOOD_FRIDAY_NFP_FUTURE),
  ],
  UK: [],
  JP: [],
  CH: [],
};
