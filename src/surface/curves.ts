/**
 * `curves` as the package root exports it: a discount curve by tenor, read from a response, and what a
 * notebook asks of it; day count fractions between dates; holiday calendars by name or currency. The constants
 * (`DAY_COUNTS`, `INTERPOLATIONS`, `CALENDARS`, `ROLLS`, `QUANTLIB_DIFFERENCES`, …), `addMonths`, `addTenor` and
 * `tenorText` are in
 * `risk-portal-lab/curves`, which holds the whole folder. Every type is here too.
 */
import * as folder from "../curves";
import { guardAnswers } from "../await-guard";

export type * from "../curves";
export { Curve, CurveError } from "../curves";
// Each function behind the one guard ({@link guardAnswers}): a Promise where an answer belongs is an
// error naming the function. Same function, name, length and type; the classes above are the folder's own.
export const fromResponse = guardAnswers("curves.fromResponse", folder.fromResponse);
export const spread = guardAnswers("curves.spread", folder.spread);
export const butterfly = guardAnswers("curves.butterfly", folder.butterfly);
export const parseTenor = guardAnswers("curves.parseTenor", folder.parseTenor);
export const dayCountFraction = guardAnswers("curves.dayCountFraction", folder.dayCountFraction);
export const calendar = guardAnswers("curves.calendar", folder.calendar);
export const calendarFor = guardAnswers("curves.calendarFor", folder.calendarFor);
