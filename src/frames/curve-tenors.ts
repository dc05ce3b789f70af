/**
 * Curves read at chosen tenors: one tidy row per curve × tenor (`currency, market_date, tenor, t,
 * zero_rate, discount_factor, forward`), whatever each curve's own pillars are.
 */
import type { DataFrame } from "../../vendor/danfo";
import type { RateAssetResponse, YieldCurveModel } from "../api/rate-asset";
import { Curve, fromResponse, type CurveOptions } from "../curves/curve";
import { CurveError } from "../curves/errors";
import { tenorText, type TimeInput } from "../curves/tenor";
import { TableBuilder, type ColumnTable } from "../table/column-table";
import { DEFAULT_COMPOUNDING, type Compounding } from "../curves/compounding";
import { toDataFrame } from "./danfo";
import { provenanceFrom } from "./provenance";
import { answersDateWarnings } from "./answered-dates";

/** What {@link curveTenorsColumns} reads: curves, RateAsset responses or their `yield_curve_model`s, one or many. */
export type CurveSource = Curve | RateAssetResponse | YieldCurveModel;

/**
 * How responses are made curves (`interpolation`; `calendar`, `roll`, `spotLag` put tenor dates on business
 * days, see `curves.CurveOptions`) and how the rates are given.
 */
export interface CurveTenorsOptions extends CurveOptions {
  /** How `zero_rate` and `forward` compound. Default `continuous` (the service's convention). */
  compounding?: Compounding;
}

/** The columns, in order. */
export const CURVE_TENOR_COLUMNS = [
  "currency",
  "market_date",
  "tenor",
  "t",
  "zero_rate",
  "discount_factor",
  "forward",
] as const;

/**
 * Curves at `tenors` as a tidy column table, one row per curve × tenor (curves in the order given,
 * tenors in the order given): `currency`, `market_date` (Date), `tenor` (category: the tenor as given,
 * upper case, or `2.5Y` for a year fraction), `t` (ACT/365 years from that curve's market date: `"1M"`
 * is a different `t` on each date), `zero_rate` and `forward` (decimal, in `compounding`, default
 * continuous) and `discount_factor`. `forward` runs from the previous tenor to this one (from 0 for the
 * first tenor, where it equals the zero rate).
 *
 * Responses are made curves with `options.interpolation` (default `linear-zero`); `Curve`s keep their own.
 * With `options.calendar` (a name, a currency such as `"EUR"`, or a Calendar; with `roll`, `spotLag`),
 * tenors land on business days (see `curves.CurveOptions`), and a `date` column after `tenor` says which day
 * each landed on (`"YYYY-MM-DD"`; null for a year fraction); so it does when a `Curve` given has a calendar.
 * A `Curve` given with other `calendar`, `roll` or `spotLag` options than its own is an error naming the
 * option (build it with them: `curves.fromResponse(response, { calendar })`).
 * Tenors must be strictly increasing (on every curve) and > 0; a {@link CurveError} says which are not.
 * Responses for another market date than their requests asked for carry a warning naming the dates
 * (one response: both dates; several: which dates asked came back as which, and the duplicate rows).
 * @example
 * ```ts
 * const eur = await rp.rateAsset.getCurve({ currency: "EUR", market_date: "2026-11-20" });
 * const table = frames.curveTenorsColumns(eur, ["3M", "2Y", "10Y"]); // t, zero_rate, discount_factor, forward
 * ```
 */
export function curveTenorsColumns(
  curves: CurveSource | readonly CurveSource[],
  tenors: readonly TimeInput[],
  options: CurveTenorsOptions = {},
): ColumnTable {
  const sources: readonly CurveSource[] = Array.isArray(curves) ? curves : [curves as CurveSource];
  if (!Array.isArray(tenors) || tenors.length === 0)
    throw new CurveError('tenors must be a non-empty array, e.g. ["3M", "2Y", "10Y"]', "tenors");
  const compounding = options.compounding ?? DEFAULT_COMPOUNDING;
  const built = sources.map((c, i) => (c instanceof Curve ? ownRule(c, options, i) : fromResponse(c, options)));
  const dated = built.some((c) => c.calendar !== null);
  const labels = tenors.map(tenorText);
  const rows = built.length * tenors.length;
  const currency = new Array<string>(rows);
  const marketDate = new Array<Date>(rows);
  const tenor = new Array<string>(rows);
  const t = new Array<number>(rows);
  const zero = new Array<number>(rows);
  const df = new Array<number>(rows);
  const forward = new Array<number>(rows);
  const date = new Array<string | null>(dated ? rows : 0);
  let r = 0;
  for (const curve of built) {
    let previous: { t: number; label: string } | undefined;
    tenors.forEach((x, j) => {
      const y = curve.years(x, `tenors[${j}]`);
      if (!(y > 0))
        throw new CurveError(`tenors[${j}] must be after the market date, got ${String(x)}`, `tenors[${j}]`);
      if (previous && !(y > previous.t)) {
        throw new CurveError(
          `tenors must increase: tenors[${j}] ${labels[j]} (${y} years) is not after ${previous.label} (${previous.t} years) on the ${curve.currency} curve of ${curve.marketDate.toISOString().slice(0, 10)}`,
          `tenors[${j}]`,
        );
      }
      currency[r] = curve.currency;
      marketDate[r] = curve.marketDate;
      tenor[r] = labels[j]!;
      if (dated) date[r] = typeof x === "string" ? curve.tenorDate(x) : null;
      t[r] = y;
      zero[r] = curve.zeroRate(y, { compounding });
      df[r] = curve.discountFactor(y);
      forward[r] = previous ? curve.forwardRate(previous.t, y, { compounding }) : zero[r]!;
      previous = { t: y, label: labels[j]! };
      r++;
    });
  }
  const interpolations = [...new Set(built.map((c) => c.interpolation))];
  const builder = new TableBuilder(
    rows,
    "curve tenors",
    {
      interpolation: interpolations.length === 1 ? interpolations[0] : interpolations,
      compounding,
      ...(dated ? { calendar: rulesOf(built) } : {}),
    },
    provenanceFrom(...sources),
  )
    .add("currency", currency, { hint: "string", owned: true })
    .add("market_date", marketDate, { hint: "date", owned: true })
    .add("tenor", tenor, { hint: "category", owned: true, levels: labels });
  if (dated) builder.add("date", date, { hint: "string", owned: true });
  const table = builder
    .add("t", t, { hint: "number", owned: true })
    .add("zero_rate", zero, { hint: "number", owned: true })
    .add("discount_factor", df, { hint: "number", owned: true })
    .add("forward", forward, { hint: "number", owned: true })
    .build();
  // Responses of another market date than asked (a weekend in a list of dates) say so (A23).
  table.meta.warnings.push(...answersDateWarnings(sources));
  return table;
}

/**
 * `curve` when `options` ask for no calendar, roll or spot lag, or for the ones it has; a CurveError naming
 * the option otherwise (a Curve keeps the rule it was built with, as it keeps its interpolation).
 */
function ownRule(curve: Curve, options: CurveTenorsOptions, i: number): Curve {
  if (options.calendar === undefined && options.roll === undefined && options.spotLag === undefined) return curve;
  const asked = new Curve(curve.currency, curve.marketDate, curve.pillars, {
    ...options,
    interpolation: curve.interpolation,
  });
  const field = [
    ["calendar", asked.calendar?.name ?? null, curve.calendar?.name ?? null],
    ["roll", asked.roll, curve.roll],
    ["spotLag", asked.spotLag, curve.spotLag],
  ].find(([, a, b]) => a !== b);
  if (field === undefined) return curve;
  throw new CurveError(
    `options.${field[0]} ${JSON.stringify(field[1])} is not curves[${i}]'s (${JSON.stringify(field[2])}): a Curve keeps the calendar, roll and spot lag it was built with; build it with them (curves.fromResponse(response, { calendar, roll, spotLag })) or pass the response`,
    `options.${field[0]}`,
  );
}

/** `"TARGET, modified-following, spot lag 2"` for each distinct rule of the curves (none: "unadjusted"). */
function rulesOf(curves: readonly Curve[]): string | string[] {
  const rules = [
    ...new Set(curves.map((c) => (c.calendar ? `${c.calendar.name}, ${c.roll}, spot lag ${c.spotLag}` : "unadjusted"))),
  ];
  return rules.length === 1 ? rules[0]! : rules;
}

/**
 * Curves at `tenors` as a tidy danfo DataFrame (see {@link curveTenorsColumns}).
 *
 * @example
 * ```ts
 * const curvesByDate = await Promise.all(dates.map((market_date) => rp.rateAsset.getCurve({ currency: "USD", market_date })));
 * const df = frames.curveTenors(curvesByDate, ["3M", "2Y", "5Y", "10Y", "30Y"]);
 * ```
 */
export function curveTenors(
  curves: CurveSource | readonly CurveSource[],
  tenors: readonly TimeInput[],
  options: CurveTenorsOptions = {},
): DataFrame {
  return toDataFrame(curveTenorsColumns(curves, tenors, options));
}
