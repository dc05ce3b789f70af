/** The one error the curve model throws. */
import { RiskPortalError } from "../errors";

/**
 * Invalid input to the curve model: a curve it cannot build (no pillars, a pillar with a non-finite or
 * negative maturity, two pillars at one maturity with different rates, no market date) or a query it
 * cannot answer (NaN or negative `t`, an unknown tenor such as `"3X"`, `t2 <= t1`, a bad frequency), or a
 * calendar asked what it cannot say (an unknown calendar, currency or roll, a day that does not exist such
 * as `"2026-02-30"`, a day outside 1990–2070 where the holiday rules are valid, a Date not at 00:00 UTC).
 * `argument` names what is at fault (`t`, `tenor`, `t2`, `pillars[3].maturity`, `options.frequency`,
 * `date`, `roll`, `name`, `currency`, …)
 * and the message says why, with the value. The model throws this instead of returning NaN.
 */
export class CurveError extends RiskPortalError {
  /** The argument or field at fault: `t`, `tenor`, `pillars[3].rate`, `options.interpolation`, … */
  readonly argument: string;

  constructor(message: string, argument: string) {
    super(message, { operation: "curve model" });
    this.argument = argument;
  }
}
