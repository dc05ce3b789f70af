/**
 * The table room's errors. They are of the library's one family (`err instanceof RiskPortalError` catches
 * them all), whose base is {@link RiskPortalError}.
 */
import { RiskPortalError } from "../errors";

/** A pivot that cannot be made as asked: repeated (index, key) pairs without `agg`, an `agg` the values do not allow. */
export class PivotError extends RiskPortalError {
  constructor(message: string) {
    super(message, { operation: "pivot" });
  }
}

/** Bad input to `frames.diff`: a missing key column, duplicate or missing keys, a bad tolerance. */
export class FrameDiffError extends RiskPortalError {
  constructor(message: string) {
    super(`frames.diff: ${message}`, { operation: "frames.diff" });
  }
}
