/**
 * `curves` as the package root exports it: a discount curve by tenor, read from a response, and what a
 * notebook asks of it. The constants (`DAY_COUNTS`, `INTERPOLATIONS`, …), `addMonths`, `addTenor`, `tenorText` and
 * `dayCountFraction` are in
 * `risk-portal-lab/curves` (src/subpath/curves.ts), which holds the whole folder. Every type is here too.
 */
export type * from "../curves";
export { Curve, CurveError, fromResponse, spread, butterfly, parseTenor } from "../curves";
