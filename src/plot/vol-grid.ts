/** Shared reading of vol grids for the smile and surface charts: a model grid, or a long vol table. */
import { columnsOf, isTableInput, numbers, type TableInput } from "./input";

/**
 * A vol grid as the local model returns it (`vol.fromSurface(s).grid(maturities, strikes, strikeType)`):
 * maturities in days, strikes in `strikeType`'s convention, row-major decimal vols.
 */
export interface VolGridLike {
  maturities: ArrayLike<number>;
  strikes: ArrayLike<number>;
  strikeType: number | string | object;
  vols: ArrayLike<number>;
}

/**
 * What the vol builders take: a model grid, or a long table / DataFrame with `maturity` (days),
 * `strike`, `vol` (decimal) — `frames.volGridColumns(grid)` / `frames.volGrid(grid)` or the service's
 * `frames.volResultsColumns(results)` / `frames.volResults(...)`.
 */
export type VolInput = VolGridLike | TableInput;

export interface VolMatrix {
  maturities: number[];
  strikes: number[];
  /** `vols[i][j]`: maturity i, strike j; null where the table has no vol. */
  vols: (number | null)[][];
  strikeType: number | string | object | undefined;
}

function isGrid(v: unknown): v is VolGridLike {
  if (typeof v !== "object" || v === null) return false;
  const g = v as Partial<VolGridLike>;
  return (
    g.maturities !== undefined &&
    g.strikes !== undefined &&
    g.vols !== undefined &&
    typeof g.vols.length === "number" &&
    !("columns" in g)
  );
}

/** The vols of `input` as maturity × strike (both ascending); `strikeType` overrides what the input says. */
export function readVols(input: VolInput, caller: string, strikeType?: number | string | object): VolMatrix {
  if (isGrid(input)) {
    const m = input.maturities.length;
    const k = input.strikes.length;
    if (input.vols.length !== m * k)
      throw new RangeError(
        `${caller}: the grid has ${input.vols.length} vols for ${m} maturities × ${k} strikes (expected ${m * k}, row-major)`,
      );
    const mOrder = [...Array(m).keys()].sort((a, b) => input.maturities[a]! - input.maturities[b]!);
    const kOrder = [...Array(k).keys()].sort((a, b) => input.strikes[a]! - input.strikes[b]!);
    return {
      maturities: mOrder.map((i) => input.maturities[i]!),
      strikes: kOrder.map((j) => input.strikes[j]!),
      vols: mOrder.map((i) => kOrder.map((j) => finite(input.vols[i * k + j]!))),
      strikeType: strikeType ?? input.strikeType,
    };
  }
  if (!isTableInput(input))
    throw new TypeError(
      `${caller} expects a vol grid (vol.fromSurface(s).grid(...)) or a long vol table with maturity, strike and vol columns (frames.volGridColumns / frames.volResultsColumns)`,
    );
  const view = columnsOf(input, caller);
  const maturity = numbers(view, "maturity");
  const strike = numbers(view, "strike");
  const vol = numbers(view, "vol");
  let type: number | string | object | undefined = strikeType;
  if (type === undefined) {
    const field = view.fields.strike_type;
    if (typeof field === "number" || typeof field === "string") type = field;
    else if (view.has("strike_type")) type = numbers(view, "strike_type").find((x) => Number.isFinite(x));
  }
  const maturities = [...new Set(maturity.filter(Number.isFinite))].sort((a, b) => a - b);
  const strikes = [...new Set(strike.filter(Number.isFinite))].sort((a, b) => a - b);
  const mIndex = new Map(maturities.map((x, i) => [x, i]));
  const kIndex = new Map(strikes.map((x, j) => [x, j]));
  const vols = maturities.map(() => new Array<number | null>(strikes.length).fill(null));
  for (let r = 0; r < view.rowCount; r++) {
    const i = mIndex.get(maturity[r]!);
    const j = kIndex.get(strike[r]!);
    if (i !== undefined && j !== undefined) vols[i]![j] = finite(vol[r]!);
  }
  return { maturities, strikes, vols, strikeType: type };
}

function finite(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}
