/** `crossCheckHeatmap`: the service's GetVol minus the local model, maturity × strike, breaches marked. */
import type { CrossCheckResult, CrossCheckRow } from "../vol/cross-check";
import type { Figure, Trace } from "./figure";
import { columnsOf, isTableInput, numbers, texts, type TableInput } from "./input";
import { daysLabel, formatNumber, strikeAxisTitle } from "./labels";
import { axis, baseConfig, baseLayout, INK } from "./theme";
import { displayable } from "./show";

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

/** The rows of any accepted input, with the check's own tolerance and strike type when it carries them. */
function readRows(input: CrossCheckInput): { rows: Row[]; tolerance?: number; strikeType?: number | string } {
  if (Array.isArray(input)) return { rows: input.map(fromRow) };
  if (
    typeof input === "object" &&
    input !== null &&
    "rows" in input &&
    Array.isArray((input as CrossCheckResult).rows) &&
    "summary" in input
  ) {
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

/** One `vol.crossCheck` row, a missing vol as NaN. */
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
/** A decimal vol difference or tolerance in vol bp: the one unit and notation of the chart. */
const bp = (v: number) => `${formatNumber(v * BP, 3)} vol bp`;

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
 * @example
 * ```ts
 * plot.show(plot.crossCheckHeatmap(await vol.crossCheck(rp, surface, { maturities: [30, 90, 365], strikes: [80, 90, 100, 110, 120] })));
 * ```
 */
export function crossCheckHeatmap(input: CrossCheckInput, options: CrossCheckHeatmapOptions = {}): Figure {
  const read = readRows(input);
  const tolerance = options.tolerance ?? read.tolerance ?? DEFAULT_TOLERANCE;
  if (!(tolerance >= 0))
    throw new RangeError(`plot.crossCheckHeatmap: tolerance must be >= 0 (decimal vol); got ${tolerance}`);
  const strikeType = options.strikeType ?? read.strikeType;
  const grid = fillGrid(read.rows, tolerance);
  const data: Trace[] = [heatmapTrace(grid, tolerance), ...markerTraces(grid, tolerance)];
  const layout = heatmapLayout(options.title ?? summaryTitle(grid, tolerance), strikeType);
  // A grid of exact zeros is all white, which reads as a chart that failed to draw: say what it shows.
  if (grid.answered > 0 && grid.maxAbs === 0)
    layout.annotations = [
      {
        text: `all ${grid.answered} residuals are 0`,
        xref: "paper",
        yref: "paper",
        x: 0.5,
        y: 0.5,
        showarrow: false,
        font: { size: 16, color: INK.muted },
        bgcolor: "rgba(255,255,255,0.85)",
      },
    ];
  return displayable({ data, layout, config: baseConfig() });
}

/** Markers on cells: category coordinates and hover text. */
interface Markers {
  x: string[];
  y: string[];
  text: string[];
}

/** The rows laid out on the maturity × strike grid, with what the traces and the title need. */
interface Grid {
  xLabels: string[];
  yLabels: string[];
  /** `service − local` in vol bp, `null` where not answered, by maturity then strike. */
  z: (number | null)[][];
  /** Hover data per cell: service vol, local vol, verdict. */
  custom: string[][][];
  breach: Markers;
  failed: Markers;
  failedMaturities: Set<number>;
  maxAbs: number;
  maxAt: Row | undefined;
  answered: number;
}

/** The sorted distinct maturities and strikes as axis labels, and each value's index on its axis. */
function gridAxes(rows: readonly Row[]) {
  const maturities = [...new Set(rows.map((r) => r.maturity))].sort((a, b) => a - b);
  const strikes = [...new Set(rows.map((r) => r.strike))].sort((a, b) => a - b);
  return {
    yLabels: maturities.map(daysLabel),
    xLabels: strikes.map((k) => formatNumber(k)),
    mIndex: new Map(maturities.map((m, i) => [m, i])),
    kIndex: new Map(strikes.map((k, j) => [k, j])),
  };
}

/** Places every row on the grid: answered cells get their difference, the others a no-vol marker. */
function fillGrid(rows: readonly Row[], tolerance: number): Grid {
  const { xLabels, yLabels, mIndex, kIndex } = gridAxes(rows);
  const grid: Grid = {
    xLabels,
    yLabels,
    z: yLabels.map(() => new Array<number | null>(xLabels.length).fill(null)),
    custom: yLabels.map(() => xLabels.map(() => ["none", "none", "not checked", "none"])),
    breach: { x: [], y: [], text: [] },
    failed: { x: [], y: [], text: [] },
    failedMaturities: new Set<number>(),
    maxAbs: 0,
    maxAt: undefined,
    answered: 0,
  };
  for (const r of rows) {
    const i = mIndex.get(r.maturity)!;
    const j = kIndex.get(r.strike)!;
    if (Number.isFinite(r.difference) && Number.isFinite(r.service)) placeAnswered(grid, r, i, j, tolerance);
    else placeFailed(grid, r, i, j);
  }
  return grid;
}

/** An answered cell: its difference in vol bp, the running largest |difference|, and a breach marker beyond the tolerance. */
function placeAnswered(grid: Grid, r: Row, i: number, j: number, tolerance: number): void {
  grid.answered++;
  grid.z[i]![j] = r.difference * BP;
  const abs = Math.abs(r.difference);
  if (abs > grid.maxAbs || !grid.maxAt) {
    grid.maxAbs = Math.max(abs, grid.maxAbs);
    grid.maxAt = r;
  }
  const beyond = abs > tolerance;
  grid.custom[i]![j] = [
    pct(r.service),
    pct(r.local),
    beyond ? "BEYOND TOLERANCE" : "within tolerance",
    bp(r.difference),
  ];
  if (beyond) {
    const { xLabels, yLabels, breach } = grid;
    breach.x.push(xLabels[j]!);
    breach.y.push(yLabels[i]!);
    breach.text.push(`${yLabels[i]}, strike ${xLabels[j]}: Δ ${bp(r.difference)} (tolerance ±${bp(tolerance)})`);
  }
}

/** A cell the service did not answer: a no-vol marker with the error. */
function placeFailed(grid: Grid, r: Row, i: number, j: number): void {
  const { xLabels, yLabels, failed } = grid;
  grid.failedMaturities.add(r.maturity);
  grid.custom[i]![j] = ["none", pct(r.local), `no service vol: ${r.error ?? "missing"}`, "none"];
  failed.x.push(xLabels[j]!);
  failed.y.push(yLabels[i]!);
  failed.text.push(`${yLabels[i]}: ${r.error ?? "no service vol"}`);
}

/** The heatmap trace: differences in vol bp on a diverging scale centred on zero, spanning at least ± the tolerance. */
function heatmapTrace(grid: Grid, tolerance: number): Trace {
  const span = Math.max(grid.maxAbs, tolerance) * BP || 1e-12;
  return {
    type: "heatmap",
    name: "service − local",
    x: grid.xLabels,
    y: grid.yLabels,
    z: grid.z,
    customdata: grid.custom,
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
    colorbar: {
      title: { text: "service − local<br>(vol bp)", side: "right" },
      exponentformat: "none",
      thickness: 14,
      len: 0.9,
    },
    hovertemplate:
      "maturity %{y}, strike %{x}<br>service %{customdata[0]}<br>local %{customdata[1]}<br>Δ %{customdata[3]}<br>%{customdata[2]}<extra></extra>",
    showscale: true,
  };
}

/** The two marker traces: a black ✕ on each breach, a grey square on each cell without a service vol. */
function markerTraces(grid: Grid, tolerance: number): [Trace, Trace] {
  const { breach, failed } = grid;
  return [
    {
      type: "scatter",
      mode: "markers",
      name: `beyond ±${bp(tolerance)} (${breach.x.length})`,
      x: breach.x,
      y: breach.y,
      text: breach.text,
      marker: { symbol: "x-thin", size: 13, color: "#111111", line: { width: 2.5, color: "#111111" } },
      hovertemplate: "%{text}<extra></extra>",
    },
    {
      type: "scatter",
      mode: "markers",
      name: `no service vol (${maturityCount(grid.failedMaturities.size)})`,
      x: failed.x,
      y: failed.y,
      text: failed.text,
      marker: { symbol: "square", size: 16, color: "#c9ced6", line: { width: 1, color: INK.muted } },
      hovertemplate: "%{text}<extra></extra>",
    },
  ];
}

/** The default title: the largest difference and where, how many cells breach, how many maturities failed. */
function summaryTitle(grid: Grid, tolerance: number): string {
  const { maxAt, failedMaturities } = grid;
  const where = maxAt ? ` at ${daysLabel(maxAt.maturity)} / ${formatNumber(maxAt.strike)}` : "";
  const summary = !grid.answered
    ? "no maturity answered"
    : grid.maxAbs === 0
      ? `all ${grid.answered} residuals are 0: the service and the local model agree exactly`
      : `max |Δ| ${bp(grid.maxAbs)}${where} · ${grid.breach.x.length} of ${grid.answered} beyond ±${bp(tolerance)}`;
  const failures = failedMaturities.size ? ` · ${maturityCount(failedMaturities.size)} failed` : "";
  return `GetVol vs local model<br><span style="font-size:13px;color:${INK.muted}">${summary}${failures}</span>`;
}

/** The layout: category axes (strikes across, maturities down), no grid lines. */
function heatmapLayout(title: string, strikeType: number | string | undefined) {
  return baseLayout(title, {
    xaxis: axis(strikeAxisTitle(strikeType), { type: "category", showgrid: false, ticks: "" }),
    yaxis: axis("Maturity", { type: "category", showgrid: false, ticks: "" }),
    margin: { l: 80, r: 24, t: 78, b: 64 },
    hovermode: "closest",
  });
}

/** `1 maturity`, `3 maturities`. */
function maturityCount(n: number): string {
  return `${n} maturit${n === 1 ? "y" : "ies"}`;
}
