/**
 * Vols as frames: the service's `GetVol` results (one maturity, many strikes per call) and the local
 * model's grids (maturities × strikes), each long (`maturity, strike, vol`) and wide (one row per
 * maturity, one column per strike). Maturities in calendar days (A6), vols decimal (A7).
 */
import type { DataFrame } from "../../vendor/danfo";
import { TableBuilder, type ColumnTable } from "../table/column-table";
import { toDataFrame } from "./danfo";
import { pivotColumns } from "./pivot";
import { provenanceFrom } from "./provenance";

/**
 * A vol grid from the local model (structural: any object of this shape will do). `vols` is row-major:
 * `vols[i * strikes.length + j]` is the vol at maturity `i`, strike `j`.
 */
export interface VolGrid {
  maturities: ArrayLike<number>;
  strikes: ArrayLike<number>;
  strikeType: number | string | object;
  vols: ArrayLike<number>;
}

/** One `GetVol` call: what was asked (maturity, strikes) and what came back (`vols`, one per strike). */
export interface GetVolResult {
  request: { maturity: number; strikes: ArrayLike<number>; strike_type?: number };
  response: { vols: ArrayLike<number>; strike_type?: number };
}

const LONG = ["maturity", "strike", "vol", "strike_type"] as const;

/**
 * The long table of one or many `GetVol` results: `maturity, strike, vol, strike_type`, in call then
 * strike order; `meta.provenance` has the provenance of each response.
 * @example
 * ```ts
 * const req = { surface, maturity: 90, strikes: [80, 100, 120], strike_type: STRIKE_TYPE.PercentForward };
 * const table = frames.volResultsColumns(await rp.tradable.getVol(req), req); // maturity, strike, vol, strike_type
 * ```
 */
export function volResultsColumns(results: readonly GetVolResult[]): ColumnTable;
export function volResultsColumns(response: GetVolResult["response"], request: GetVolResult["request"]): ColumnTable;
export function volResultsColumns(
  a: readonly GetVolResult[] | GetVolResult["response"],
  b?: GetVolResult["request"],
): ColumnTable {
  const results: readonly GetVolResult[] = Array.isArray(a)
    ? a
    : [{ response: a as GetVolResult["response"], request: b! }];
  if (!Array.isArray(a) && !b)
    throw new TypeError(
      "volResults(response, request): the request (maturity and strikes) is needed to label the vols",
    );
  let n = 0;
  results.forEach(({ request, response }, k) => {
    const where = results.length > 1 ? ` (result ${k})` : "";
    if (!request || !response) throw new TypeError(`each GetVol result needs { request, response }${where}`);
    if (response.vols.length !== request.strikes.length) {
      throw new RangeError(
        `GetVol returned ${response.vols.length} vols for ${request.strikes.length} strikes${where}; each vol belongs to one strike`,
      );
    }
    n += request.strikes.length;
  });
  const columns = LONG.map(() => new Array<unknown>(n));
  let row = 0;
  for (const { request, response } of results) {
    const strikeType = response.strike_type ?? request.strike_type ?? null;
    for (let j = 0; j < request.strikes.length; j++, row++) {
      columns[0]![row] = request.maturity;
      columns[1]![row] = request.strikes[j];
      columns[2]![row] = response.vols[j];
      columns[3]![row] = strikeType;
    }
  }
  const builder = new TableBuilder(n, "GetVol", {}, provenanceFrom(...results.map((r) => r.response)));
  LONG.forEach((name, k) => builder.add(name, columns[k]!, { hint: "number", owned: true }));
  return builder.build();
}

/**
 * `GetVol` results as a long danfo DataFrame (see {@link volResultsColumns}).
 *
 * @example
 * ```ts
 * const df = frames.volResults(await rp.tradable.getVol(req), req);
 * ```
 */
export function volResults(results: readonly GetVolResult[]): DataFrame;
export function volResults(response: GetVolResult["response"], request: GetVolResult["request"]): DataFrame;
export function volResults(
  a: readonly GetVolResult[] | GetVolResult["response"],
  b?: GetVolResult["request"],
): DataFrame {
  return toDataFrame(Array.isArray(a) ? volResultsColumns(a) : volResultsColumns(a as GetVolResult["response"], b!));
}

/**
 * `GetVol` results wide: one row per maturity (ascending), one column per strike (ascending, named by the strike).
 * @example
 * ```ts
 * const req = { surface, maturity: 90, strikes: [80, 100, 120], strike_type: STRIKE_TYPE.PercentForward };
 * const wide = frames.volResultsWideColumns([{ request: req, response: await rp.tradable.getVol(req) }]);
 * ```
 */
export function volResultsWideColumns(results: readonly GetVolResult[]): ColumnTable;
export function volResultsWideColumns(
  response: GetVolResult["response"],
  request: GetVolResult["request"],
): ColumnTable;
export function volResultsWideColumns(
  a: readonly GetVolResult[] | GetVolResult["response"],
  b?: GetVolResult["request"],
): ColumnTable {
  const long = Array.isArray(a) ? volResultsColumns(a) : volResultsColumns(a as GetVolResult["response"], b!);
  return widen(long);
}

/**
 * {@link volResultsWideColumns} as a danfo DataFrame.
 * @example
 * ```ts
 * const req = { surface, maturity: 90, strikes: [80, 100, 120], strike_type: STRIKE_TYPE.PercentForward };
 * const smile = frames.volResultsWide([{ request: req, response: await rp.tradable.getVol(req) }]); // maturities × strikes
 * ```
 */
export function volResultsWide(results: readonly GetVolResult[]): DataFrame;
export function volResultsWide(response: GetVolResult["response"], request: GetVolResult["request"]): DataFrame;
export function volResultsWide(
  a: readonly GetVolResult[] | GetVolResult["response"],
  b?: GetVolResult["request"],
): DataFrame {
  return toDataFrame(
    Array.isArray(a) ? volResultsWideColumns(a) : volResultsWideColumns(a as GetVolResult["response"], b!),
  );
}

function checkGrid(grid: VolGrid): void {
  const expected = grid.maturities.length * grid.strikes.length;
  if (grid.vols.length !== expected) {
    throw new RangeError(
      `vol grid has ${grid.vols.length} vols for ${grid.maturities.length} maturities × ${grid.strikes.length} strikes (expected ${expected}, row-major)`,
    );
  }
}

/**
 * A local-model vol grid, long: `maturity, strike, vol`, maturity-major; `strikeType` goes to `meta.fields.strike_type`.
 * @example
 * ```ts
 * const grid = vol.fromSurface(surface).grid([30, 91, 365], [80, 100, 120], STRIKE_TYPE.PercentForward);
 * const table = frames.volGridColumns(grid); // maturity, strike, vol
 * ```
 */
export function volGridColumns(grid: VolGrid): ColumnTable {
  checkGrid(grid);
  const m = grid.maturities.length;
  const k = grid.strikes.length;
  const maturity = new Array<number>(m * k);
  const strike = new Array<number>(m * k);
  const vol = new Array<number>(m * k);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < k; j++) {
      const r = i * k + j;
      maturity[r] = grid.maturities[i]!;
      strike[r] = grid.strikes[j]!;
      vol[r] = grid.vols[r]!;
    }
  }
  return new TableBuilder(m * k, "vol grid", { strike_type: grid.strikeType })
    .add("maturity", maturity, { hint: "number", owned: true })
    .add("strike", strike, { hint: "number", owned: true })
    .add("vol", vol, { hint: "number", owned: true })
    .build();
}

/**
 * A local-model vol grid as a long danfo DataFrame (see {@link volGridColumns}).
 *
 * @example
 * ```ts
 * const df = frames.volGrid(grid);
 * ```
 */
export function volGrid(grid: VolGrid): DataFrame {
  return toDataFrame(volGridColumns(grid));
}

/**
 * A local-model vol grid wide: one row per maturity, one column per strike (named by the strike), in grid order.
 * @example
 * ```ts
 * const grid = vol.fromSurface(surface).grid([30, 91, 365], [80, 100, 120], STRIKE_TYPE.PercentForward);
 * const wide = frames.volGridWideColumns(grid);
 * ```
 */
export function volGridWideColumns(grid: VolGrid): ColumnTable {
  checkGrid(grid);
  const m = grid.maturities.length;
  const k = grid.strikes.length;
  const builder = new TableBuilder(m, "vol grid", { strike_type: grid.strikeType });
  builder.add("maturity", Array.from(grid.maturities), { hint: "number", owned: true });
  for (let j = 0; j < k; j++) {
    const column = new Array<number>(m);
    for (let i = 0; i < m; i++) column[i] = grid.vols[i * k + j]!;
    let label = String(grid.strikes[j]);
    while (builder.has(label)) label += "_";
    builder.add(label, column, { hint: "number", owned: true });
  }
  return builder.build();
}

/**
 * {@link volGridWideColumns} as a danfo DataFrame (maturities × strikes).
 * @example
 * ```ts
 * const grid = vol.fromSurface(surface).grid([30, 91, 365], [80, 100, 120], STRIKE_TYPE.PercentForward);
 * plot.show(frames.volGridWide(grid)); // maturities × strikes
 * ```
 */
export function volGridWide(grid: VolGrid): DataFrame {
  return toDataFrame(volGridWideColumns(grid));
}

function widen(long: ColumnTable): ColumnTable {
  return pivotColumns(long, { index: "maturity", columns: "strike", values: "vol", columnOrder: "sorted" });
}
