/** `crossCheckHeatmap`: the service's GetVol minus the local model, maturity × strike, breaches marked. */
import type { CrossCheckResult, CrossCheckRow } from "../vol/cross-check";
import type { Figure, Trace } from "./figure";
import { columnsOf, isTableInput, numbers, texts, type TableInput } from "./input";
import { daysLabel, formatNumber, strikeAxisTitle } from "./labels";
import { axis, baseConfig, baseLayout, INK } from "./theme";

/** Default tolerance when the input does not carry one: `vol.DEFAULT_CROSS_CHECK_TOLERANCE` (1e−8 decimal vol). */
const DEFAULT_TOLERANCE = 1e-8;
/** Decimal vol → vol basis points (1 bp of vol = 0.0001). */
const BP = 1e4;

export interface CrossCheckHeatmapOptions {
  /** Absolute tolerance (decimal vol) beyond which a cell is a breach. Default: the check's own, else 1e−8. */
  tolerance?: number;
  /** Strike convention for the axis title. Default: the check's `strikeType`. */
  strikeType?: number | string;
  /** Chart title. Default: a summary line (largest difference, breaches). */
  title?: string;
}

/** What `crossCheckHeatmap` takes: `vol.crossCheck`'s result, its `rows`, or a table / DataFrame of them. */
export type CrossCheckInput = CrossCheckResult | readonly CrossCheckRow[] | TableInput;

interface Row {
  maturity: number;
  strike: number;
  service: number;
  local: number;
  difference: number;
  error: string | null;
}

function readRows(input: CrossCheckInput): { rows: Row[]; tolerance?: number; strikeType?: number | string } {
  if (Array.isArray(input)) return { rows: input.map(fromRow) };
  if (typeof input === "object" && input !== null && "rows" in input && Array.isArray((input as CrossCheckResult).rows) && "summary" in input) {
    const check = input as CrossCheckResult;
    return { rows: check.rows.map(fromRow), tolerance: check.tolerance, strikeType: check.strikeType };
  }
  if (!isTableInput(input))
    throw new TypeError(
      "plot.crossCheckHeatmap expects vol.crossCheck's result, its rows, or a table of them (maturity, strike, service_vol, local_vol, difference)",
    );
  const view = columnsOf(input, "plot.crossCheckHeatmap");
  const maturity = numbers(view, "maturity");
  const strike = numbers(view, "strike");
  const service = numbers(view, "service_vol");
  const local = numbers(view, "local_vol");
  const difference = view.has("difference") ? numbers(view, "difference") : service.map((s, i) => s - local[i]!);
  const error = view.has("error") ? texts(view, "error") : [];
  return {
    rows: maturity.map((m, i) => ({
      maturity: m,
      strike: strike[i]!,
      service: service[i]!,
      local: local[i]!,
      difference: difference[i]!,
      error: error[i] ?? null,
    })),
  };
}

function fromRow(r: CrossCheckRow): Row {
  const num = (v: number | null | undefined) => (typeof v === "number" ? v : NaN);
  return {
    maturity: r.maturity,
    strike: r.strike,
    service: num(r.service_vol),
    local: num(r.local_vol),
    difference: num(r.difference),
    error: r.error ?? null,
  };
}

const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(4)}%` : "none");

/**
 * The cross-check as a heatmap: maturities (rows, days) × strikes (columns), coloured by
 * `service_vol − local_vol` in vol basis points on a diverging scale centred on zero (white = equal;
 * the scale spans at least ± the tolerance, so a clean check is white). Cells beyond the tolerance
 * carry a black ✕ ("beyond tolerance"); maturities the service did not answer are grey squares ("no
 * service vol", the error on hover). Always three traces: heatmap, breaches, no-vol.
 *
 * Takes `vol.crossCheck(rp, surface, { maturities, strikes })`'s result (its tolerance and strike type
 * are used), its `rows`, or a table / DataFrame of rows.
 *
 * ```ts
 * plot.show(plot.crossCheckHeatmap(await vol.crossCheck(rp, surface, { maturities: [30, 90, 365], strikes: [80, 90, 100, 110, 120] })));
 * ```
 */
export function crossCheckHeatmap(input: CrossCheckInput, options: CrossCheckHeatmapOptions = {}): Figure {
  const read = readRows(input);
  const tolerance = options.tolerance ?? read.tolerance ?? DEFAULT_TOLERANCE;
  if (!(tolerance >= 0)) throw new RangeError(`plot.crossCheckHeatmap: tolerance must be >= 0 (decimal vol); got ${tolerance}`);
  const strikeType = options.strikeType ?? read.strikeType;
  const { rows } = read;
  const maturities = [...new Set(rows.map((r) => r.maturity))].sort((a, b) => a - b);
  const strikes = [...new Set(rows.map((r) => r.strike))].sort((a, b) => a - b);
  const yLabels = maturities.map(daysLabel);
  const xLabels = strikes.map((k) => formatNumber(k));
  const mIndex = new Map(maturities.map((m, i) => [m, i]));
  const kIndex = new Map(strikes.map((k, j) => [k, j]));

  const z = maturities.map(() => new Array<number | null>(strikes.length).fill(null));
  const custom = maturities.map(() => strikes.map(() => ["none", "none", "not checked"]));
  const breach = { x: [] as string[], y: [] as string[], text: [] as string[] };
  const failed = { x: [] as string[], y: [] as string[], text: [] as string[] };
  const failedMaturities = new Set<number>();
  let maxAbs = 0;
  let maxAt: Row | undefined;
  let answered = 0;
  for (const r of rows) {
    const i = mIndex.get(r.maturity)!;
    const j = kIndex.get(r.strike)!;
    const ok = Number.isFinite(r.difference) && Number.isFinite(r.service);
    if (ok) {
      answered++;
      z[i]![j] = r.difference * BP;
      const abs = Math.abs(r.difference);
      if (abs > maxAbs || !maxAt) {
        maxAbs = Math.max(abs, maxAbs);
        maxAt = r;
      }
      const beyond = abs > tolerance;
      custom[i]![j] = [pct(r.service), pct(r.local), beyond ? "BEYOND TOLERANCE" : "within tolerance"];
      if (beyond) {
        breach.x.push(xLabels[j]!);
        breach.y.push(yLabels[i]!);
        breach.text.push(`${yLabels[i]}, strike ${xLabels[j]}: Δ ${formatNumber(r.difference * BP, 3)} vol bp (tolerance ±${formatNumber(tolerance * BP, 3)})`);
      }
    } else {
      failedMaturities.add(r.maturity);
      custom[i]![j] = ["none", pct(r.local), `no service vol: ${r.error ?? "missing"}`];
      failed.x.push(xLabels[j]!);
      failed.y.push(yLabels[i]!);
      failed.text.push(`${yLabels[i]}: ${r.error ?? "no service vol"}`);
    }
  }
  const span = Math.max(maxAbs, tolerance) * BP || 1e-12;

  const data: Trace[] = [
    {
      type: "heatmap",
      name: "service − local",
      x: xLabels,
      y: yLabels,
      z,
      customdata: custom,
      zmin: -span,
      zmax: span,
      zmid: 0,
      colorscale: [
        [0, "#2166ac"],
        [0.25, "#92c5de"],
        [0.5, "#f7f7f7"],
        [0.75, "#f4a582"],
        [1, "#b2182b"],
      ],
      xgap: 1,
      ygap: 1,
      colorbar: { title: { text: "service − local<br>(vol bp)", side: "right" }, exponentformat: "e", thickness: 14, len: 0.9 },
      hovertemplate: "maturity %{y}, strike %{x}<br>service %{customdata[0]}<br>local %{customdata[1]}<br>Δ %{z:.3e} vol bp<br>%{customdata[2]}<extra></extra>",
      showscale: true,
    },
    {
      type: "scatter",
      mode: "markers",
      name: `beyond ±${formatNumber(tolerance * BP, 3)} vol bp (${breach.x.length})`,
      x: breach.x,
      y: breach.y,
      text: breach.text,
      marker: { symbol: "x-thin", size: 13, color: "#111111", line: { width: 2.5, color: "#111111" } },
      hovertemplate: "%{text}<extra></extra>",
    },
    {
      type: "scatter",
      mode: "markers",
      name: `no service vol (${failedMaturities.size} maturit${failedMaturities.size === 1 ? "y" : "ies"})`,
      x: failed.x,
      y: failed.y,
      text: failed.text,
      marker: { symbol: "square", size: 16, color: "#c9ced6", line: { width: 1, color: INK.muted } },
      hovertemplate: "%{text}<extra></extra>",
    },
  ];

  const where = maxAt ? ` at ${daysLabel(maxAt.maturity)} / ${formatNumber(maxAt.strike)}` : "";
  const summary = answered
    ? `max |Δ| ${formatNumber(maxAbs * BP, 3)} vol bp${where} · ${breach.x.length} of ${answered} beyond ±${formatNumber(tolerance * BP, 3)} vol bp`
    : "no maturity answered";
  const failures = failedMaturities.size ? ` · ${failedMaturities.size} maturit${failedMaturities.size === 1 ? "y" : "ies"} failed` : "";
  return {
    data,
    layout: baseLayout(options.title ?? `GetVol vs local model<br><span style="font-size:13px;color:${INK.muted}">${summary}${failures}</span>`, {
      xaxis: axis(strikeAxisTitle(strikeType), { type: "category", showgrid: false, ticks: "" }),
      yaxis: axis("Maturity", { type: "category", showgrid: false, ticks: "" }),
      margin: { l: 80, r: 24, t: 78, b: 64 },
      hovermode: "closest",
    }),
    config: baseConfig(),
  };
}
