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

const EQUINOX =
  "QuantLib's equinox formula counts leap years from 2000 with truncating division, a day early or late before " +
  "2000; the Cabinet Office's list of national holidays has this day (and the formula 20.8431 + 0.242194(y − 1980) " +
  "− ⌊(y − 1980)/4⌋, which gives QuantLib's days from 2000 on)";
const EQUINOX_NOT = `not an equinox holiday: ${EQUINOX.replace("has this day", "has the equinox on another day")}`;
const SUBSTITUTE_1973 =
  "no holiday: before 2007 a national holiday on a Sunday moved to the Monday only (Public Holidays Law as " +
  "amended in 1973); QuantLib's 6 May rule, observing Golden Week on 6 May when a holiday falls on the weekend, " +
  "is the law from 2007 (Cabinet Office list of national holidays)";

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
    open(
      "1994-04-01",
      "Good Friday on payrolls day: the Treasury market traded (thinly, most traders gone by midday; 30-year bond " +
        "down 1 29/32 on the March payrolls, The Record, 1994-04-01), as on every such Good Friday since; " +
        "QuantLib closes it (the newest QuantLib's rule starts in 1996)",
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
  JP: [
    closed("1990-03-21", `Vernal Equinox Day; ${EQUINOX}`),
    open("1990-03-20", EQUINOX_NOT),
    closed("1990-09-24", `substitute holiday for Autumnal Equinox Day (Sunday 23 September); ${EQUINOX}`),
    closed("1991-03-21", `Vernal Equinox Day; ${EQUINOX}`),
    open("1991-03-20", EQUINOX_NOT),
    open("1992-05-06", SUBSTITUTE_1973),
    open("1993-03-19", EQUINOX_NOT),
    closed("1993-09-23", `Autumnal Equinox Day; ${EQUINOX}`),
    open("1993-09-22", EQUINOX_NOT),
    closed("1994-09-23", `Autumnal Equinox Day; ${EQUINOX}`),
    open("1994-09-22", EQUINOX_NOT),
    closed("1995-03-21", `Vernal Equinox Day; ${EQUINOX}`),
    open("1995-03-20", EQUINOX_NOT),
    open("1995-09-22", `${EQUINOX_NOT} (it fell on Saturday 23 September)`),
    closed("1997-03-20", `Vernal Equinox Day; ${EQUINOX}`),
    open("1997-03-19", EQUINOX_NOT),
    open("1997-05-06", SUBSTITUTE_1973),
    closed("1997-09-23", `Autumnal Equinox Day; ${EQUINOX}`),
    open("1997-09-22", EQUINOX_NOT),
    open("1998-03-20", `${EQUINOX_NOT} (it fell on Saturday 21 March)`),
    open("1998-05-06", SUBSTITUTE_1973),
    closed("1998-09-23", `Autumnal Equinox Day; ${EQUINOX}`),
    open("1998-09-22", EQUINOX_NOT),
    closed("1999-03-22", `substitute holiday for Vernal Equinox Day (Sunday 21 March); ${EQUINOX}`),
    closed("1999-09-23", `Autumnal Equinox Day; ${EQUINOX}`),
    open("1999-09-22", EQUINOX_NOT),
    open("2003-05-06", SUBSTITUTE_1973),
  ],
  CH: [],
};
