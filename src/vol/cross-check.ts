/**
 * `crossCheck`: the service's `GetVol` against the local model, maturity by maturity, strike by strike.
 */
import { provenanceOf, type Provenance } from "../client/provenance";
import { STRIKE_TYPE, type StrikeType } from "../api/assumptions";
import type { RiskPortalClient } from "../client/client";
import { VolModelError, fmt } from "./errors";
import { fromSurface, VolSurfaceModel, type WireSurface } from "./surface";
import { checkStrikeType } from "./strikes";
import { toFloat64, type SurfaceLike } from "./surface-input";

/** One strike at one maturity. Data fields are snake_case so a DataFrame built from rows reads naturally. */
export interface CrossCheckRow {
  /** Maturity in days. */
  maturity: number;
  /** The strike as requested, in the check's `strikeType` convention. */
  strike: number;
  /** The service's vol (decimal), or null when the service failed for this maturity. */
  service_vol: number | null;
  /** The local model's vol (decimal). */
  local_vol: number;
  /** `service_vol − local_vol`, or null when the service failed. */
  difference: number | null;
  /** True when `|difference| > tolerance`, or when the service gave no vol for this maturity (see `error`). */
  flagged: boolean;
  /** Why the service gave no vol for this maturity (the error's message). */
  error?: string;
}

/** A maturity the service did not answer. */
export interface FailedMaturity {
  maturity: number;
  /** The error's message (for a `BadRequestError`, the problem details the service sent). */
  error: string;
  /** The error itself (e.g. `BadRequestError` with `status`, `problem`, `requestId`). */
  cause: unknown;
}

/** Totals of a cross-check. */
export interface CrossCheckSummary {
  /** Maturities requested / answered by the service. */
  maturities: number;
  answered: number;
  /** Rows (maturities × strikes). */
  rows: number;
  /** Largest `|service_vol − local_vol|` over answered rows (0 when none). */
  maxAbsDifference: number;
  /** Where it was: maturity (days) and strike; null when no row was answered. */
  maxAt: { maturity: number; strike: number } | null;
  /** Answered rows with `|difference| > tolerance`. */
  beyondTolerance: number;
  /** Rows with `flagged` (beyond tolerance, or no service vol). */
  flagged: number;
  /** The maturities the service failed, in request order, with their error messages. */
  failed: FailedMaturity[];
  /** True when every maturity was answered and no row is beyond tolerance. */
  ok: boolean;
}

/** What {@link crossCheck} returns. */
export interface CrossCheckResult {
  /** Rows in request order: maturity by maturity, strike by strike. */
  rows: CrossCheckRow[];
  summary: CrossCheckSummary;
  strikeType: StrikeType;
  tolerance: number;
  /** Where the service's vols came from: one entry per answered `GetVol` call, in maturity order. */
  provenance: Provenance[];
}

/** Options of {@link crossCheck}. */
export interface CrossCheckOptions {
  /** Maturities to check, in days (each finite and > 0). */
  maturities: ArrayLike<number>;
  /** Strikes, in the `strikeType` convention (each finite and > 0). */
  strikes: ArrayLike<number>;
  /** Wire strike convention (A5). Default `STRIKE_TYPE.PercentForward`. */
  strikeType?: StrikeType;
  /** Absolute vol difference (decimal, 1e−8 = 1e−6 vol points) beyond which a row is flagged. Default 1e−8. */
  tolerance?: number;
  /** How many `GetVol` calls may be in flight at once. Default 4. */
  concurrency?: number;
  /** Called after each maturity completes (answered or failed): `done` of `total` maturities. */
  onProgress?: (done: number, total: number) => void;
  /** Aborts the check: calls in flight are aborted and the promise rejects (no partial result). */
  signal?: AbortSignal;
}

/** Default absolute tolerance of {@link crossCheck} (decimal vol). */
export const DEFAULT_CROSS_CHECK_TOLERANCE = 1e-8;
/** Default number of `GetVol` calls in flight. */
export const DEFAULT_CROSS_CHECK_CONCURRENCY = 4;

function optionError(message: string, field: string, condition: string): VolModelError {
  return new VolModelError(message, { field, condition });
}

/** {@link CrossCheckOptions} with defaults filled in and every field checked. */
interface ResolvedOptions {
  strikeType: StrikeType;
  tolerance: number;
  concurrency: number;
  maturities: number[];
  strikes: Float64Array;
}

/** Fills in the defaults of the options and checks them; throws {@link VolModelError} on the first invalid one. */
function resolveOptions(options: CrossCheckOptions): ResolvedOptions {
  if (!options || typeof options !== "object")
    throw optionError("options are required: { maturities, strikes }", "options", "present");
  const strikeType = options.strikeType ?? STRIKE_TYPE.PercentForward;
  checkStrikeType(strikeType);
  if (typeof strikeType !== "number")
    throw optionError(
      `strikeType must be a wire strike type (0, 1 or 2); got ${JSON.stringify(strikeType)}`,
      "strikeType",
      "wire strike type",
    );
  const tolerance = options.tolerance ?? DEFAULT_CROSS_CHECK_TOLERANCE;
  if (!(tolerance >= 0))
    throw optionError(`tolerance must be a number >= 0; got ${tolerance}`, "tolerance", "tolerance >= 0");
  const concurrency = options.concurrency ?? DEFAULT_CROSS_CHECK_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw optionError(`concurrency must be an integer >= 1; got ${concurrency}`, "concurrency", "concurrency >= 1");
  const maturities = Array.from(toFloat64(options.maturities, "maturities", { allowEmpty: true }));
  const strikes = toFloat64(options.strikes, "strikes").slice();
  return { strikeType, tolerance, concurrency, maturities, strikes };
}

/** What the service gave for one maturity: its vols (and where they came from), or why it gave none. */
type Outcome = { vols: number[]; provenance?: Provenance } | { error: string; cause: unknown };

/** The part of a `GetVol` request that is the same for every maturity, and the signal that aborts the calls. */
interface VolRequest {
  surface: WireSurface;
  strikes: number[];
  strikeType: StrikeType;
  signal: AbortSignal | undefined;
}

/** Calls `GetVol` for one maturity; a failure becomes an error outcome, except an abort, which rethrows the abort reason. */
async function fetchOutcome(client: RiskPortalClient, request: VolRequest, maturity: number): Promise<Outcome> {
  const { surface, strikes, strikeType, signal } = request;
  try {
    const reply = await client.tradable.getVol({ surface, maturity, strikes, strike_type: strikeType }, { signal });
    return reply.vols.length === strikes.length
      ? { vols: reply.vols, provenance: provenanceOf(reply) }
      : { error: `GetVol returned ${reply.vols.length} vols for ${strikes.length} strikes`, cause: reply };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    return { error: error instanceof Error ? error.message : String(error), cause: error };
  }
}

/** Fetches every maturity with at most `concurrency` calls in flight, reporting progress; outcomes in maturity order. */
async function fetchOutcomes(
  client: RiskPortalClient,
  request: VolRequest,
  maturities: number[],
  concurrency: number,
  onProgress: CrossCheckOptions["onProgress"],
): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(maturities.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < maturities.length) {
      const index = next++;
      outcomes[index] = await fetchOutcome(client, request, maturities[index]!);
      done++;
      onProgress?.(done, maturities.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, maturities.length) }, worker));
  return outcomes;
}

/** The rows of one maturity: service and local vols with their difference, or, when the service failed, flagged rows with its error. */
function maturityRows(
  maturity: number,
  strikes: number[],
  localVols: Float64Array,
  outcome: Outcome,
  tolerance: number,
): CrossCheckRow[] {
  if ("error" in outcome) {
    return strikes.map((strike, j) => ({
      maturity,
      strike,
      service_vol: null,
      local_vol: localVols[j]!,
      difference: null,
      flagged: true,
      error: outcome.error,
    }));
  }
  return strikes.map((strike, j) => {
    const service = outcome.vols[j]!;
    const difference = service - localVols[j]!;
    return {
      maturity,
      strike,
      service_vol: service,
      local_vol: localVols[j]!,
      difference,
      flagged: !(Math.abs(difference) <= tolerance),
    };
  });
}

/** Totals of the rows: the largest difference and where it was, rows beyond tolerance, rows flagged, maturities failed. */
function summarise(rows: CrossCheckRow[], failed: FailedMaturity[], maturities: number): CrossCheckSummary {
  let maxAbs = 0;
  let maxAt: CrossCheckSummary["maxAt"] = null;
  let beyond = 0;
  let flagged = 0;
  for (const row of rows) {
    if (row.flagged) flagged++;
    if (row.difference === null) continue;
    const abs = Math.abs(row.difference);
    if (abs > maxAbs || maxAt === null) {
      maxAbs = Math.max(maxAbs, abs);
      maxAt = { maturity: row.maturity, strike: row.strike };
    }
    if (row.flagged) beyond++;
  }
  return {
    maturities,
    answered: maturities - failed.length,
    rows: rows.length,
    maxAbsDifference: maxAbs,
    maxAt,
    beyondTolerance: beyond,
    flagged,
    failed,
    ok: failed.length === 0 && beyond === 0,
  };
}

/**
 * Calls the service's `GetVol` for each maturity (at most `concurrency` at a time) with the same surface
 * and strikes, evaluates the local model on them, and returns one row per maturity × strike with both
 * vols and their difference. A maturity the service rejects (any error the client throws, e.g.
 * `BadRequestError`) gives rows with `service_vol: null` and the error; the other maturities still come
 * back. Throws {@link VolModelError} before any call when the surface or the options are invalid locally,
 * and rejects with the abort reason when `signal` aborts.
 *
 * @example
 * ```ts
 * const check = await vol.crossCheck(rp, surface, { maturities: [30, 90, 365], strikes: [80, 90, 100, 110, 120] });
 * check.summary.maxAbsDifference;
 * ```
 */
export async function crossCheck(
  client: RiskPortalClient,
  surface: SurfaceLike | VolSurfaceModel,
  options: CrossCheckOptions,
): Promise<CrossCheckResult> {
  const model = fromSurface(surface);
  const wire = model.toJSON();
  const { strikeType, tolerance, concurrency, maturities, strikes } = resolveOptions(options);
  // Local vols first: a bad maturity or strike is the caller's mistake and fails before any call.
  const local = maturities.map((d) => model.vols(d, strikes, strikeType));
  const strikeList = Array.from(strikes);
  const { signal, onProgress } = options;
  signal?.throwIfAborted();

  const request: VolRequest = { surface: wire, strikes: strikeList, strikeType, signal };
  const outcomes = await fetchOutcomes(client, request, maturities, concurrency, onProgress);
  const rows = maturities.flatMap((maturity, i) =>
    maturityRows(maturity, strikeList, local[i]!, outcomes[i]!, tolerance),
  );
  const failed = maturities.flatMap((maturity, i) => {
    const outcome = outcomes[i]!;
    return "error" in outcome ? [{ maturity, error: outcome.error, cause: outcome.cause }] : [];
  });
  const provenance = outcomes.flatMap((o) => ("provenance" in o && o.provenance ? [o.provenance] : []));
  return { rows, provenance, summary: summarise(rows, failed, maturities.length), strikeType, tolerance };
}

/** A decimal vol difference in vol basis points (1 vol bp = 0.0001), the unit the charts use too. */
function volBp(x: number): string {
  return `${fmt(Number((x * 1e4).toPrecision(3)))} vol bp`;
}

/**
 * One line per failed maturity and the largest difference, for printing (differences and tolerance in vol bp).
 * @example
 * ```ts
 * console.log(vol.formatSummary(await vol.crossCheck(rp, surface, { maturities: [30, 91], strikes: [80, 100, 120] })));
 * ```
 */
export function formatSummary(result: CrossCheckResult): string {
  const s = result.summary;
  const lines = [
    `${s.answered}/${s.maturities} maturities answered, ${s.rows} rows; max |service − local| = ${volBp(s.maxAbsDifference)}` +
      (s.maxAt ? ` at maturity ${fmt(s.maxAt.maturity)} d, strike ${fmt(s.maxAt.strike)}` : "") +
      `; ${s.beyondTolerance} beyond ±${volBp(result.tolerance)}`,
    ...s.failed.map((f) => `maturity ${fmt(f.maturity)} d failed: ${f.error}`),
  ];
  return lines.join("\n");
}
