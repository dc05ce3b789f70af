/** The one error the local vol model throws. */
import { RiskPortalError } from "../errors";

/** Where a {@link VolModelError} points: the benchmark (0-based), the wire field, and the failed condition. */
export interface VolModelErrorDetails {
  /** 0-based benchmark index, when the problem belongs to one benchmark. */
  benchmark?: number;
  /** The wire field (`skews`, `benchmark_maturities`, `strikes`, `maturity`, …) or option at fault. */
  field?: string;
  /** The condition that failed, in the notation of vol-model.md (e.g. `-p < 2·psi < c`). */
  condition: string;
}

/**
 * Invalid input to the vol model: a surface that breaks a validity condition of vol-model.md, or a query
 * (maturity, strikes, strike type) the model cannot evaluate. The message names the benchmark index
 * (and its maturity in days) when there is one, the condition, and the offending values. The model
 * throws this instead of returning NaN, and never clamps a bad input silently.
 */
export class VolModelError extends RiskPortalError {
  // `declare`: absent (not `undefined`) when they do not apply, so logs and JSON stay clean.
  /** 0-based benchmark index, when the problem belongs to one benchmark. */
  declare readonly benchmark?: number;
  /** The wire field or option at fault. */
  declare readonly field?: string;
  /** The failed condition (short form, e.g. `-p < 2·psi < c`). */
  readonly condition: string;

  constructor(message: string, details: VolModelErrorDetails) {
    super(message, { operation: "vol model" });
    if (details.benchmark !== undefined) (this as { benchmark?: number }).benchmark = details.benchmark;
    if (details.field !== undefined) (this as { field?: string }).field = details.field;
    this.condition = details.condition;
  }
}

/** `0.2`, `-1.5e-9`, `1000000`: numbers in messages, to 10 significant digits (JavaScript's own notation). */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const rounded = Number(x.toPrecision(10));
  // Near ±Number.MAX_VALUE, rounding to 10 digits goes past the largest double: print the digits as they are.
  return Number.isFinite(rounded) ? String(rounded) : x.toPrecision(10);
}
