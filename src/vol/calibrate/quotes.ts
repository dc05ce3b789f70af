/**
 * The quotes, read and checked: each smile's strikes as log-forward-moneyness in the model's limits,
 * its vols and the square roots of its weights, and calibrate's other options; every error a
 * {@link VolModelError} naming the field path (`smiles[2].vols[5]`).
 */
import { DAYS_PER_YEAR } from "../../api/assumptions";
import { dateTimeInput } from "../../api/common";
import { namedDateProblem } from "../../api/field-messages";
import { VolModelError, fmt } from "../errors";
import { normInv } from "../normal";
import { checkStrikeType, logShift, type ModelStrikeType } from "../strikes";
import { LOG_MONEYNESS_LIMIT } from "../surface";
import {
  DEFAULT_MAX_ITERATIONS,
  MIN_QUOTES,
  VEGA_WEIGHT_FLOOR,
  type CalibrateOptions,
  type SmileQuotes,
} from "./options";

/** One smile, checked: quotes as log-forward-moneyness. */
export interface ParsedSmile {
  index: number;
  maturity: number;
  T: number;
  forward: number;
  k: Float64Array;
  vols: Float64Array;
  /** sqrt of the normalised weights (mean 1). */
  sw: Float64Array;
}

function fail(message: string, field: string, condition: string, benchmark?: number): never {
  throw new VolModelError(message, { field, condition, benchmark });
}

const shown = (x: unknown): string =>
  typeof x === "number" ? fmt(x) : x === null ? "null" : typeof x === "string" ? JSON.stringify(x) : typeof x;

/** An array (or typed array) of numbers at `path`, elementwise errors naming `path[j]`. */
function readNumbers(value: unknown, path: string, benchmark: number): Float64Array {
  if (!(Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView)))) {
    fail(`${path} must be an array of numbers (or a Float64Array); got ${shown(value)}`, path, "array", benchmark);
  }
  const a = value as ArrayLike<unknown>;
  const out = new Float64Array(a.length);
  for (let j = 0; j < a.length; j++) {
    const x = a[j];
    if (typeof x !== "number" || !Number.isFinite(x))
      fail(`${path}[${j}] must be a finite number; got ${shown(x)}`, `${path}[${j}]`, "finite", benchmark);
    out[j] = x;
  }
  return out;
}

/** The log-forward-moneyness of each quote of `smiles[i]` from its strikes in their convention (each checked). */
function logMoneyness(
  x: Float64Array,
  vols: Float64Array,
  strikeType: ModelStrikeType,
  at: { path: string; i: number; T: number; forward: number; spot: number },
): Float64Array {
  const { path, i } = at;
  const sqrtT = Math.sqrt(at.T);
  const k = new Float64Array(x.length);
  const shift = logShift(strikeType, Math.log(at.forward), Math.log(at.spot));
  for (let j = 0; j < x.length; j++) {
    const xj = x[j]!;
    const field = `${path}.strikes[${j}]`;
    if (shift !== undefined) {
      if (!(xj > 0)) fail(`${field} must be a finite number > 0; got ${fmt(xj)}`, field, "strike > 0", i);
      k[j] = Math.log(xj) + shift;
    } else if (strikeType === "delta") {
      if (!(xj > 0 && xj < 1))
        fail(`${field} must be a forward call delta in (0, 1); got ${fmt(xj)}`, field, "0 < delta < 1", i);
      const sw = vols[j]! * sqrtT;
      k[j] = sw * (sw / 2 - normInv(xj));
    } else {
      k[j] = xj;
    }
    if (!(Math.abs(k[j]!) <= LOG_MONEYNESS_LIMIT)) {
      fail(
        `${field}: log-moneyness ${fmt(k[j]!)} is beyond the model's limit |k| <= ${LOG_MONEYNESS_LIMIT}`,
        field,
        "|k| <= 1e4",
        i,
      );
    }
  }
  return k;
}

/** Reads `smiles[i].maturity`: days > 0, after the previous smile's. */
function readMaturity(s: Partial<SmileQuotes>, path: string, i: number, previous: ParsedSmile | undefined): number {
  const maturity = s.maturity;
  if (typeof maturity !== "number" || !Number.isFinite(maturity) || !(maturity > 0)) {
    fail(
      `${path}.maturity must be a finite number of days > 0; got ${shown(maturity)}`,
      `${path}.maturity`,
      "T > 0",
      i,
    );
  }
  if (previous && !(maturity > previous.maturity && maturity / DAYS_PER_YEAR > previous.T)) {
    const what =
      maturity === previous.maturity
        ? `repeats smiles[${i - 1}].maturity`
        : `comes before smiles[${i - 1}].maturity (${fmt(previous.maturity)} d)`;
    fail(
      `${path}.maturity (${fmt(maturity)} d) ${what}: smiles go shortest maturity first, one per maturity`,
      `${path}.maturity`,
      "strictly increasing",
      i,
    );
  }
  return maturity;
}

/** The smile's forward: `smiles[i].forward` when given, else spot·exp(rate·T); a finite price > 0. */
function readForward(s: Partial<SmileQuotes>, path: string, i: number, spot: number, rate: number, T: number): number {
  let forward = spot * Math.exp(rate * T);
  if (s.forward !== undefined) {
    if (typeof s.forward !== "number" || !Number.isFinite(s.forward) || !(s.forward > 0)) {
      fail(`${path}.forward must be a finite price > 0; got ${shown(s.forward)}`, `${path}.forward`, "F > 0", i);
    }
    forward = s.forward;
  }
  if (!(forward > 0 && forward < Infinity))
    fail(
      `${path}: the forward spot·exp(forwardRate·T) = ${fmt(forward)} is not a finite price > 0`,
      "forwardRate",
      "F > 0",
      i,
    );
  return forward;
}

/**
 * Reads `smiles[i].vols` or `.weights` (`field`): one number per strike, each > 0; `must` says what an
 * element that is not must be (after "smiles[i].vols[j] "), `condition` is the error's condition.
 */
function readPerStrike(
  value: unknown,
  field: { path: string; name: "vols" | "weights"; noun: string },
  i: number,
  n: number,
  must: (x: number) => string,
  condition: string,
): Float64Array {
  const path = `${field.path}.${field.name}`;
  const a = readNumbers(value, path, i);
  if (a.length !== n)
    fail(
      `${path} has ${a.length} values but ${field.path}.strikes has ${n}; give one ${field.noun} per strike`,
      path,
      "same length",
      i,
    );
  for (let j = 0; j < n; j++) if (!(a[j]! > 0)) fail(`${path}[${j}] ${must(a[j]!)}`, `${path}[${j}]`, condition, i);
  return a;
}

/** Reads `smiles[i].vols`: one decimal vol > 0 per strike. */
function readVols(s: Partial<SmileQuotes>, path: string, i: number, n: number): Float64Array {
  const field = { path, name: "vols", noun: "vol" } as const;
  return readPerStrike(s.vols, field, i, n, (x) => `must be a decimal vol > 0; got ${fmt(x)}`, "vol > 0");
}

/** Reads `smiles[i].weights` (all 1 when absent): one weight > 0 per strike. */
function readWeights(s: Partial<SmileQuotes>, path: string, i: number, n: number): Float64Array {
  const weights = new Float64Array(n).fill(1);
  if (s.weights === undefined) return weights;
  const field = { path, name: "weights", noun: "weight" } as const;
  const must = (x: number) => `must be > 0; got ${fmt(x)} (leave a quote out rather than weight it 0)`;
  weights.set(readPerStrike(s.weights, field, i, n, must, "weight > 0"));
  return weights;
}

/** sqrt of the weights (times φ(d1) when vega-weighted) normalised to mean 1. */
function sqrtWeights(
  weights: Float64Array,
  k: Float64Array,
  vols: Float64Array,
  T: number,
  weighting: "uniform" | "vega",
): Float64Array {
  const n = weights.length;
  const sqrtT = Math.sqrt(T);
  if (weighting === "vega") {
    const vega = Float64Array.from(k, (kj, j) => {
      const sw = vols[j]! * sqrtT;
      const d1 = -kj / sw + sw / 2;
      return Math.exp((-d1 * d1) / 2);
    });
    // φ(d1), floored at a fraction of the smile's largest: a quote far in a wing still counts, so the
    // wings cannot float away from their quotes (unfloored, a 60% strike at 14 days weighs ~1e-40).
    const floor = VEGA_WEIGHT_FLOOR * vega.reduce((a, v) => Math.max(a, v), 0);
    for (let j = 0; j < n; j++) weights[j] = weights[j]! * Math.max(vega[j]!, floor);
  }
  let mean = 0;
  for (let j = 0; j < n; j++) mean += weights[j]!;
  mean /= n;
  return weights.map((w) => Math.sqrt(w / mean));
}

/** Reads and checks `smiles[i]` (see {@link calibrate} for the conditions): log-moneyness of each quote, vols, and sqrt of the weights normalised to mean 1. */
export function readSmile(
  raw: unknown,
  i: number,
  spot: number,
  rate: number,
  weighting: "uniform" | "vega",
  previous: ParsedSmile | undefined,
): ParsedSmile {
  const path = `smiles[${i}]`;
  if (raw === null || typeof raw !== "object")
    fail(`${path} must be an object { maturity, strikes, strikeType, vols }; got ${shown(raw)}`, path, "object", i);
  const s = raw as Partial<SmileQuotes>;
  const maturity = readMaturity(s, path, i, previous);
  const T = maturity / DAYS_PER_YEAR;
  const forward = readForward(s, path, i, spot, rate, T);
  try {
    checkStrikeType(s.strikeType);
  } catch (error) {
    if (error instanceof VolModelError)
      fail(`${path}.strikeType: ${error.message}`, `${path}.strikeType`, error.condition, i);
    throw error;
  }
  const strikeType = s.strikeType;
  const x = readNumbers(s.strikes, `${path}.strikes`, i);
  const n = x.length;
  const vols = readVols(s, path, i, n);
  const weights = readWeights(s, path, i, n);
  const k = logMoneyness(x, vols, strikeType, { path, i, T, forward, spot });
  const distinct = new Set(k).size;
  if (distinct < MIN_QUOTES) {
    fail(
      `${path} has ${distinct === n ? n : `${distinct} distinct strikes among ${n}`} quotes; a slice has ${MIN_QUOTES} parameters, so a smile needs at least ${MIN_QUOTES} quotes at distinct strikes`,
      `${path}.strikes`,
      `at least ${MIN_QUOTES} quotes`,
      i,
    );
  }
  const sw = sqrtWeights(weights, k, vols, T, weighting);
  return { index: i, maturity, T, forward, k, vols, sw };
}

/** Reads and checks calibrate's options other than the smiles' contents. */
export function readCalibrateOptions(options: CalibrateOptions) {
  if (!options || typeof options !== "object") {
    fail("options are required: { spot, referenceDate, smiles }", "options", "present");
  }
  const { spot, smiles } = options;
  if (typeof spot !== "number" || !Number.isFinite(spot) || !(spot > 0))
    fail(`spot must be a finite number > 0; got ${shown(spot)}`, "spot", "spot > 0");
  const date = dateTimeInput.safeParse(options.referenceDate);
  if (!date.success) {
    const why = namedDateProblem(options.referenceDate);
    fail(
      why
        ? `referenceDate: ${why}`
        : `referenceDate must be a Date or an ISO 8601 date-time with an offset (or YYYY-MM-DD); got ${options.referenceDate instanceof Date ? "Invalid Date" : shown(options.referenceDate)}`,
      "referenceDate",
      "date-time",
    );
  }
  const rate = options.forwardRate ?? 0;
  if (typeof rate !== "number" || !Number.isFinite(rate))
    fail(`forwardRate must be a finite number; got ${shown(rate)}`, "forwardRate", "finite");
  const weighting = options.weighting ?? "uniform";
  if (weighting !== "uniform" && weighting !== "vega")
    fail(`weighting must be "uniform" or "vega"; got ${shown(weighting)}`, "weighting", "known weighting");
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  if (!Number.isInteger(maxIterations) || !(maxIterations > 0)) {
    fail(`maxIterations must be a whole number > 0; got ${shown(maxIterations)}`, "maxIterations", "integer > 0");
  }
  const onProgress = options.onProgress;
  if (onProgress !== undefined && typeof onProgress !== "function")
    fail(`onProgress must be a function (done, total) => void; got ${shown(onProgress)}`, "onProgress", "function");
  if (!Array.isArray(smiles) || smiles.length === 0) {
    fail(
      `smiles must be a non-empty array of { maturity, strikes, strikeType, vols }; got ${Array.isArray(smiles) ? "an empty array" : shown(smiles)}`,
      "smiles",
      "non-empty",
    );
  }
  const noiseBp = options.noiseBp;
  if (noiseBp !== undefined && !(typeof noiseBp === "number" && noiseBp > 0 && noiseBp < Infinity))
    fail(`noiseBp must be a finite number of vol bp > 0; got ${shown(noiseBp)}`, "noiseBp", "noise > 0");
  return { spot, smiles, referenceDate: date.data, rate, weighting, maxIterations, onProgress, noiseBp };
}
