/**
 * The fit loop: the augmented-Lagrangian solve of one slice, its restarts, and the passes over the
 * smiles.
 *
 * Order. Fitted shortest first, each slice against the one fitted just before it, a noisy short slice
 * bounds every longer one from below (calendar) and can push it hundreds of bp off its quotes. When
 * the calendar bound costs a slice more than {@link SPOILED} times its own unconstrained fit's weighted
 * RMSE, the smiles are fitted again longest first, each below the longer one already fitted (the mirror
 * image: `−dir`, the neighbour's wing slopes an upper end, the calendar rows reversed). The short slice then
 * gives way: its quotes, out to a few sqrt(theta) in k, pin its wings least. Each slice's wing slopes stay
 * above {@link BELOW_FLOOR} of the longer one's (from 0, a short slice's wings run to 0), and where the
 * longest slice, fitted alone, has a wing run off, its first-pass fit is kept. The second pass is kept
 * when its summed weighted RMSE is lower and no more of its slices are flagged ({@link misfit}); a fit
 * jointly over all slices would be the full answer, at the price of one problem of 5·n variables with
 * every pair's constraints.
 */
import type { CheckedSlice, DiagnoseCache } from "../diagnostics";
import { levenbergMarquardt } from "../optimize";
import { check, checkedSlice, clearFit, dataCost, type CheckContext, type SliceSolve } from "./check";
import { constraintGrid } from "./constraints";
import { MAX_OUTER, type CalibrationConstraint } from "./options";
import { SliceProblem } from "./problem";
import type { ParsedSmile } from "./quotes";
import { insaneParameters } from "./report";
import { decode, sliceSpace, type Slice, type SliceSpace } from "./slice";
import { atmStart, betterStart, feasibleStart, initialGuess } from "./start";

/**
 * A constrained solve of a slice has also converged when, feasible and passing the check in two rounds
 * in a row ({@link INNER_ITERATIONS} iterations each), the second lowered the weighted RMS of the quote
 * errors by at most this fraction of it: the fit has settled though a parameter may still creep along a
 * flat valley (the curvature and beta running together towards the minimum variance's bound, reached only
 * as the variables run to ±∞), where the step and gradient tolerances are never met and the solve would
 * spend its whole budget for thousandths of a bp. {@link SANE_LIMITS} judge where it stopped.
 */
const SETTLED = 1e-5;
const RHO0 = 1e4;
const RHO_GROWTH = 10;
const RHO_MAX = 1e10;
/** Levenberg–Marquardt iterations between multiplier updates: the inner solves need not be exact, and binding constraints get their multipliers (and a good linear model) early. */
const INNER_ITERATIONS = 30;
const GRID_STEP = 0.2;

/**
 * The augmented-Lagrangian loop from x0 ({@link SliceProblem}): solve, update the multipliers (raising ρ when
 * the violation did not fall fourfold), and once the constraints hold to their tolerances, the fine-grid
 * check, whose failures join the constraint grid.
 */
function constrainedSolve(
  at: CheckContext,
  space: SliceSpace,
  prev: Slice | undefined,
  x0: Float64Array,
  budget: number,
): SliceSolve {
  const { q, last } = at;
  let x = x0;
  const start = decode(x, space);
  const problem = new SliceProblem(q, space, prev, last, constraintGrid(start, prev, q.k, GRID_STEP), RHO0, start);
  let iterations = 0;
  let converged = false;
  let passed = false;
  let previousViolation = Infinity;
  let settledFrom = Infinity;
  for (let outer = 0; outer < MAX_OUTER && iterations < budget; outer++) {
    const result = levenbergMarquardt(problem, x, {
      maxIterations: Math.min(INNER_ITERATIONS, budget - iterations),
      scaling: "current",
    });
    x = result.x;
    iterations += result.iterations;
    const violation = problem.updateMultipliers(x);
    passed = false;
    if (violation <= 1) {
      const { failed, points } = check(decode(x, space), at);
      if (failed) {
        problem.addPoints(points);
        previousViolation = Infinity;
        continue;
      }
      passed = true;
      // Feasible: done once the solve itself converged (with the multipliers settled), or its cost settled.
      const cost = Math.sqrt(dataCost(q, decode(x, space)));
      if (result.converged || (settledFrom < Infinity && settledFrom - cost <= SETTLED * settledFrom)) {
        converged = true;
        break;
      }
      settledFrom = cost;
      continue;
    }
    settledFrom = Infinity;
    if (violation > 0.25 * previousViolation && problem.rho < RHO_MAX) problem.rho *= RHO_GROWTH;
    previousViolation = violation;
  }
  return { x, iterations, converged, passed, active: problem.active(x), dataCost: dataCost(q, decode(x, space)) };
}

/**
 * Fits one slice: an unconstrained solve from the quotes' start (inside the wing-slope
 * range), then the constrained solve from there. When that start breaks a constraint, the constrained
 * solve runs again from a start that meets them ({@link feasibleStart}), and the better of the two that
 * pass the check is kept.
 */
function fitSlice(
  at: CheckContext,
  prev: Slice | undefined,
  maxIterations: number,
  dir: 1 | -1,
): SliceOutcome & { slice: Slice } {
  const { q, last } = at;
  const space = sliceSpace(q.T, prev, dir);
  const x0 = initialGuess(q, space);
  const quotesOnly = new SliceProblem(q, space, prev, last, [], RHO0, decode(x0, space), false);
  const start = prev ? betterStart(quotesOnly, x0, initialGuess(q, space, prev)) : x0;
  const free = levenbergMarquardt(quotesOnly, start, { maxIterations });
  let best = clearFit(at, space, prev, free) ?? constrainedSolve(at, space, prev, free.x, maxIterations);
  let iterations = free.iterations + best.iterations;
  if (best.active.size > 0 || !best.passed) {
    const x1 = feasibleStart(q, space, prev, decode(free.x, space));
    if (x1) {
      const other = constrainedSolve(at, space, prev, x1, maxIterations);
      iterations += other.iterations;
      if ((other.passed && !best.passed) || (other.passed === best.passed && other.dataCost < best.dataCost))
        best = other;
    }
  }
  const repaired = repairRunaway(at, space, prev, best, decode(free.x, space), maxIterations);
  iterations += repaired.iterations;
  const { converged, passed, active, dataCost } = repaired.best;
  return { slice: decode(repaired.best.x, space), iterations, converged, passed, active, dataCost };
}

/**
 * A restart replaces a runaway fit only when its weighted RMSE is lower by at least this fraction: a better
 * fit, not one as good. (A runaway wing slope of ~0 bounds no later slice through the calendar condition;
 * a sane but steeper one put in its place at the same error bounds later slices' slopes from below and
 * can spoil their fits.)
 */
const RUNAWAY_GAIN = 0.01;

/**
 * A slice whose parameters ran off ({@link SANE_LIMITS}) solved again from other starts: the quotes' ATM
 * vol with a symmetric smile (wing slopes halfway up their range), and the neighbour's wings. The first
 * restart that passes the check with sane parameters and a weighted RMSE at least {@link RUNAWAY_GAIN}
 * below the runaway's replaces it; when none does, the runaway fit stays, and `reasons` say what ran off.
 * (The wing variables are not bounded away from 0 instead: that moves the solver onto worse local minima.)
 */
function repairRunaway(
  at: CheckContext,
  space: SliceSpace,
  prev: Slice | undefined,
  best: SliceSolve,
  guess: Slice,
  maxIterations: number,
): { best: SliceSolve; iterations: number } {
  let iterations = 0;
  if (insaneParameters(decode(best.x, space)).length === 0) return { best, iterations };
  const { q } = at;
  const starts = [atmStart(guess, space), prev ? initialGuess(q, space, prev) : undefined];
  const limit = (1 - RUNAWAY_GAIN) ** 2 * best.dataCost;
  for (const x of starts) {
    if (!x) continue;
    const other = constrainedSolve(at, space, prev, x, maxIterations);
    iterations += other.iterations;
    if (other.passed && other.dataCost <= limit && insaneParameters(decode(other.x, space)).length === 0)
      return { best: other, iterations };
  }
  return { best, iterations };
}

/** How one slice's fit ended. */
interface SliceOutcome {
  iterations: number;
  converged: boolean;
  passed: boolean;
  active: Set<CalibrationConstraint>;
  /** Weighted sum of squared vol errors. */
  dataCost: number;
}

/** The slices fitted one at a time in one order: shortest first (`dir` 1) or longest first (−1). */
interface Pass {
  slices: Slice[];
  outcomes: SliceOutcome[];
}

/** One pass over the smiles (this file's comment): each slice fitted against the neighbour fitted just before it. */
function fitPass(
  parsed: readonly ParsedSmile[],
  dir: 1 | -1,
  maxIterations: number,
  cache: DiagnoseCache,
  onFitted?: () => void,
  from?: Pass,
): Pass {
  const n = parsed.length;
  const slices: Slice[] = new Array<Slice>(n);
  const outcomes: SliceOutcome[] = new Array<SliceOutcome>(n);
  let neighbour: Slice | undefined;
  let checked: CheckedSlice | undefined;
  for (let step = 0; step < n; step++) {
    const i = dir === 1 ? step : n - 1 - step;
    const q = parsed[i]!;
    const last = i === n - 1;
    const at: CheckContext =
      dir === 1 ? { q, prev: checked, last, cache } : { q, prev: undefined, next: checked, last, cache };
    let { slice, ...outcome } = fitSlice(at, neighbour, maxIterations, dir);
    // The longest slice alone: where a wing its quotes do not pin has run off (to 0, which would bound every
    // shorter slice's wing to ~0), its shortest-first fit instead.
    if (from && step === 0 && insaneParameters(slice).length > 0) {
      slice = from.slices[i]!;
      outcome = from.outcomes[i]!;
    }
    checked = checkedSlice(slice, i, q.maturity);
    neighbour = slice;
    slices[i] = slice;
    outcomes[i] = outcome;
    onFitted?.();
  }
  return { slices, outcomes };
}

/**
 * How far a pass's slices are from their quotes: first the slices that would not be converged (failed the
 * check, used the solver's budget, or parameters beyond {@link SANE_LIMITS}), then the sum over slices of
 * the weighted RMSE (vol units). A sum of RMSEs, not of squares, so that no one slice's noise decides
 * alone, while one slice pushed far off its quotes by the calendar bound still counts fully.
 */
function misfit(parsed: readonly ParsedSmile[], pass: Pass): [number, number] {
  let failed = 0;
  let sum = 0;
  pass.outcomes.forEach((o, i) => {
    if (!o.passed || !o.converged || insaneParameters(pass.slices[i]!).length > 0) failed++;
    sum += Math.sqrt(o.dataCost / parsed[i]!.k.length);
  });
  return [failed, sum];
}

/**
 * A slice of the shortest-first pass counts as spoiled by the calendar bound when the bound is active and
 * its weighted RMSE is more than this many times that of its own unconstrained fit (no neighbour, wing
 * slopes from 0 to Lee's bound): then the longest-first pass is tried as well.
 */
const SPOILED = 1.5;

/** Weighted sum of squared vol errors of a smile's own unconstrained fit, with no neighbour bounding it. */
function ownCost(q: ParsedSmile, maxIterations: number): number {
  const space = sliceSpace(q.T, undefined, 1);
  const x0 = initialGuess(q, space);
  const problem = new SliceProblem(q, space, undefined, false, [], RHO0, decode(x0, space), false);
  return dataCost(q, decode(levenbergMarquardt(problem, x0, { maxIterations }).x, space));
}

/**
 * The shortest-first pass, and, when the calendar bound spoiled a slice in it ({@link SPOILED}), the
 * longest-first pass too: it is kept when it fits the quotes better by {@link misfit} with no more slices
 * flagged.
 */
export function fitSlices(
  parsed: readonly ParsedSmile[],
  maxIterations: number,
  cache: DiagnoseCache,
  onProgress: ((done: number, total: number) => void) | undefined,
): Pass {
  let done = 0;
  const forward = fitPass(parsed, 1, maxIterations, cache, () => onProgress?.(++done, parsed.length));
  const spoiled = forward.outcomes.some(
    (o, i) => o.active.has("calendar") && o.dataCost > SPOILED ** 2 * ownCost(parsed[i]!, maxIterations),
  );
  if (!spoiled) return forward;
  const backward = fitPass(parsed, -1, maxIterations, cache, undefined, forward);
  const [f, b] = [misfit(parsed, forward), misfit(parsed, backward)];
  return b[1] < f[1] && b[0] <= f[0] ? backward : forward;
}
