/**
 * Charts in notebook outputs (`application/vnd.plotly.v1+json`), compared trace by trace: traces paired by
 * name (by position when names repeat), their points paired by x, their values compared as numbers; and a
 * before/after overlay figure of each changed chart for the report.
 */
import { DEFAULT_DIFF_TOLERANCE, sameNumber } from "../../table/diff";
import type { Figure } from "../../plot/figure";

/** A plotly figure as a notebook output stores it. */
export interface PlotlyJson {
  data: Record<string, unknown>[];
  layout?: Record<string, unknown>;
}

/** What changed in one trace. */
export interface TraceChange {
  name: string;
  type: string;
  status: "changed" | "added" | "removed";
  /** Points (x values; cells of z) compared, changed, only after, only before. */
  points?: number;
  changed?: number;
  added?: number;
  removed?: number;
  /** The largest |after − before| and where (the x, or `row, column` of z). */
  move?: number;
  at?: string;
  /** A change that is not in the values (type, text labels). */
  note?: string;
}

export interface ChartChange {
  title: string;
  traces: TraceChange[];
  /** The title changed (before's title). */
  titleBefore?: string;
  /** Before (dashed) and after (solid) of the changed traces; Δ as a heatmap for z traces (a figure for `plot.show`). */
  overlay?: Figure;
}

/** A figure's title as plain text. */
export function chartTitle(fig: PlotlyJson): string {
  const t = fig.layout?.title as string | { text?: unknown } | undefined;
  const raw = typeof t === "string" ? t : typeof t?.text === "string" ? t.text : "";
  return raw
    .replace(/<br\s*\/?>/gi, " — ")
    .replace(/<[^>]*>/g, "")
    .trim();
}

const traceName = (t: Record<string, unknown>, k: number) =>
  typeof t.name === "string" && t.name !== "" ? t.name : `trace ${k + 1}`;
const traceType = (t: Record<string, unknown>) => (typeof t.type === "string" ? t.type : "scatter");

/** Pairs the traces of two figures: by name when every name is distinct on both sides, else by position. */
function pairTraces(a: PlotlyJson["data"], b: PlotlyJson["data"]): [number | undefined, number | undefined][] {
  const names = (d: PlotlyJson["data"]) => d.map(traceName);
  const na = names(a);
  const nb = names(b);
  const distinct = new Set(na).size === na.length && new Set(nb).size === nb.length;
  if (!distinct)
    return Array.from({ length: Math.max(a.length, b.length) }, (_, k) => [
      k < a.length ? k : undefined,
      k < b.length ? k : undefined,
    ]);
  const pairs: [number | undefined, number | undefined][] = na.map((n, i) => [
    i,
    nb.indexOf(n) >= 0 ? nb.indexOf(n) : undefined,
  ]);
  nb.forEach((n, j) => {
    if (!na.includes(n)) pairs.push([undefined, j]);
  });
  return pairs;
}

/** Compares two figures; undefined when every trace is the same within the tolerance. */
export function diffCharts(before: PlotlyJson, after: PlotlyJson, tolerance: number): ChartChange | undefined {
  const a = Array.isArray(before.data) ? before.data : [];
  const b = Array.isArray(after.data) ? after.data : [];
  const traces: TraceChange[] = [];
  const pairs: [number | undefined, number | undefined][] = [];
  for (const [i, j] of pairTraces(a, b)) {
    const change =
      i === undefined
        ? { name: traceName(b[j!]!, j!), type: traceType(b[j!]!), status: "added" as const }
        : j === undefined
          ? { name: traceName(a[i]!, i), type: traceType(a[i]!), status: "removed" as const }
          : diffTrace(a[i]!, b[j]!, traceName(b[j]!, j), tolerance);
    if (change) {
      traces.push(change);
      pairs.push([i, j]);
    }
  }
  const title = chartTitle(after) || chartTitle(before) || "chart";
  const titleBefore = chartTitle(before) !== chartTitle(after) ? chartTitle(before) : undefined;
  if (!traces.length && titleBefore === undefined) return undefined;
  const result: ChartChange = { title, traces, ...(titleBefore !== undefined ? { titleBefore } : {}) };
  if (traces.length) result.overlay = overlayFigure(before, after, pairs, traces, title);
  return result;
}

/** Values of an array field as a flat list (z: row-major), and its rows × columns. */
function flat(v: unknown): { values: unknown[]; rows: number; cols: number } | undefined {
  if (!Array.isArray(v)) return undefined;
  if (v.every((r) => Array.isArray(r))) {
    const cols = Math.max(0, ...v.map((r: unknown[]) => r.length));
    return {
      values: v.flatMap((r: unknown[]) => [...r, ...Array<unknown>(cols - r.length).fill(null)]),
      rows: v.length,
      cols,
    };
  }
  return { values: v, rows: 1, cols: v.length };
}

/** Two values the same: numbers within the tolerance, anything else as JSON. */
function same(x: unknown, y: unknown, tolerance: number): boolean {
  if (typeof x === "number" && typeof y === "number") return sameNumber(x, y, tolerance);
  return x === y || JSON.stringify(x) === JSON.stringify(y);
}

function diffTrace(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  name: string,
  tolerance: number,
): TraceChange | undefined {
  const type = traceType(b);
  if (traceType(a) !== type) return { name, type, status: "changed", note: `type ${traceType(a)} → ${type}` };
  const za = flat(a.z);
  const zb = flat(b.z);
  if (za || zb) return diffGrid(za, zb, a, b, name, type, tolerance);
  const values =
    ["y", "values", "r", "open", "close", "high", "low"].find((f) => Array.isArray(b[f]) || Array.isArray(a[f])) ?? "y";
  const xField =
    Array.isArray(b.x) || Array.isArray(a.x)
      ? "x"
      : Array.isArray(b.labels)
        ? "labels"
        : Array.isArray(b.theta)
          ? "theta"
          : undefined;
  return diffSeries(a, b, { name, type, xField, values }, tolerance);
}

/** Points paired by their x (by position when x repeats or there is none), values compared. */
function diffSeries(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  f: { name: string; type: string; xField: string | undefined; values: string },
  tolerance: number,
): TraceChange | undefined {
  const ya = (a[f.values] as unknown[] | undefined) ?? [];
  const yb = (b[f.values] as unknown[] | undefined) ?? [];
  const xa = f.xField ? ((a[f.xField] as unknown[] | undefined) ?? ya.map((_, k) => k)) : ya.map((_, k) => k);
  const xb = f.xField ? ((b[f.xField] as unknown[] | undefined) ?? yb.map((_, k) => k)) : yb.map((_, k) => k);
  const keyOf = (x: unknown) => (typeof x === "number" ? `n${x}` : `s${JSON.stringify(x)}`);
  const byX = new Set(xa.map(keyOf)).size === xa.length && new Set(xb.map(keyOf)).size === xb.length;
  // Points whose x moved as a whole (a curve's maturities a week later: the same pillars, other year
  // fractions) pair by position when the counts agree and few x values are shared.
  const shared = byX ? xb.filter((x) => xa.some((y) => keyOf(y) === keyOf(x))).length : 0;
  const xMoved = byX && xa.length === xb.length && shared * 2 < xa.length && xa.length > 0;
  const uniqueX = byX && !xMoved;
  const where = new Map<string, number>();
  (uniqueX ? xb : xb.map((_, k) => k)).forEach((x, k) => where.set(keyOf(x), k));
  const t: TraceChange = { name: f.name, type: f.type, status: "changed", points: 0, changed: 0, added: 0, removed: 0 };
  const matched = new Set<number>();
  (uniqueX ? xa : xa.map((_, k) => k)).forEach((x, i) => {
    const j = where.get(keyOf(x));
    if (j === undefined) return void t.removed!++;
    matched.add(j);
    t.points!++;
    if (same(ya[i], yb[j], tolerance)) return;
    t.changed!++;
    const move = typeof ya[i] === "number" && typeof yb[j] === "number" ? Math.abs(yb[j] - ya[i]) : Infinity;
    if (t.move === undefined || move > t.move) Object.assign(t, { move, at: String(xb[j]) });
  });
  t.added = xb.length - matched.size;
  if (xMoved) t.note = "x values moved: points paired by position";
  return t.changed || t.added || t.removed || xMoved ? t : undefined;
}

function diffGrid(
  za: ReturnType<typeof flat>,
  zb: ReturnType<typeof flat>,
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  name: string,
  type: string,
  tolerance: number,
): TraceChange | undefined {
  if (!za || !zb || za.rows !== zb.rows || za.cols !== zb.cols)
    return {
      name,
      type,
      status: "changed",
      note: `grid ${za ? `${za.rows}×${za.cols}` : "none"} → ${zb ? `${zb.rows}×${zb.cols}` : "none"}`,
    };
  const axesSame = same(a.x, b.x, tolerance) && same(a.y, b.y, tolerance);
  const t: TraceChange = { name, type, status: "changed", points: za.values.length, changed: 0, added: 0, removed: 0 };
  za.values.forEach((v, k) => {
    const w = zb.values[k];
    if (same(v, w, tolerance)) return;
    t.changed!++;
    const move = typeof v === "number" && typeof w === "number" ? Math.abs(w - v) : Infinity;
    if (t.move === undefined || move > t.move)
      Object.assign(t, { move, at: gridLabel(b, Math.floor(k / za.cols), k % za.cols) });
  });
  if (!axesSame) t.note = "its axes (x, y) changed";
  return t.changed || !axesSame ? t : undefined;
}

function gridLabel(t: Record<string, unknown>, row: number, col: number): string {
  const x = Array.isArray(t.x) ? t.x[col] : col;
  const y = Array.isArray(t.y) ? t.y[row] : row;
  return `x ${String(x)}, y ${String(y)}`;
}

/** Traces drawn in the overlay at most (the largest moves first). */
export const MAX_OVERLAY_TRACES = 12;

/**
 * The overlay: each changed trace before (dashed, faded) and after (solid), added traces solid, removed
 * ones dashed; a z trace (heatmap, surface, contour) as a heatmap of after − before when its grid kept
 * its shape. The axes are after's; sliders, menus, shapes and annotations are left out.
 */
function overlayFigure(
  before: PlotlyJson,
  after: PlotlyJson,
  pairs: [number | undefined, number | undefined][],
  traces: TraceChange[],
  title: string,
): Figure {
  const order = traces.map((_, k) => k).sort((x, y) => (traces[y]!.move ?? 0) - (traces[x]!.move ?? 0));
  const data: Record<string, unknown>[] = [];
  for (const k of order.slice(0, MAX_OVERLAY_TRACES)) {
    const [i, j] = pairs[k]!;
    const a = i === undefined ? undefined : before.data[i];
    const b = j === undefined ? undefined : after.data[j];
    const za = flat(a?.z);
    const zb = flat(b?.z);
    if (za && zb && za.rows === zb.rows && za.cols === zb.cols) {
      const delta = (zb.values as number[]).map((w, n) =>
        typeof w === "number" && typeof za.values[n] === "number" ? w - za.values[n] : null,
      );
      const z = Array.from({ length: zb.rows }, (_, r) => delta.slice(r * zb.cols, (r + 1) * zb.cols));
      data.push({
        type: "heatmap",
        x: b!.x,
        y: b!.y,
        z,
        name: `${traces[k]!.name}: after − before`,
        colorscale: "RdBu",
        zmid: 0,
      });
      continue;
    }
    if (za || zb) continue;
    if (a) data.push(styled(a, `${traces[k]!.name} (before)`, true));
    if (b) data.push(styled(b, `${traces[k]!.name} (after)`, false));
  }
  const layout: Record<string, unknown> = {
    title: { text: `${title}: before (dashed) and after (solid)` },
    height: 420,
    showlegend: true,
  };
  for (const [key, value] of Object.entries(after.layout ?? {}))
    if (/^[xy]axis\d*$|^barmode$|^grid$|^scene\d*$/.test(key)) layout[key] = value;
  return { data, layout } as unknown as Figure;
}

/** A trace for the overlay: visible, hover kept, before dashed and faded. */
function styled(t: Record<string, unknown>, name: string, before: boolean): Record<string, unknown> {
  const { visible: _visible, ids: _ids, transforms: _transforms, legendgroup: _group, ...rest } = t;
  const line = { ...((t.line as object | undefined) ?? {}), ...(before ? { dash: "dash" } : {}) };
  return {
    ...rest,
    name,
    showlegend: true,
    ...(before ? { opacity: 0.55 } : {}),
    ...(traceType(t) === "scatter" ? { line } : {}),
  };
}

/**
 * Two plotly figures compared trace by trace, as `risk-portal-lab diff` compares a chart of two runs:
 * undefined when they draw the same (numbers within the tolerance, default 1e-9 × max(1, |value|)),
 * else the traces that changed and an `overlay` figure (before dashed, after solid) to `plot.show`.
 * @example
 * ```ts
 * const lastWeek = frames.yieldCurveColumns(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-13" }));
 * const today = frames.yieldCurveColumns(await rp.rateAsset.getCurve({ currency: "USD", market_date: "2026-11-20" }));
 * const change = diffFigures(plot.yieldCurve(lastWeek), plot.yieldCurve(today));
 * if (change) plot.show(change.overlay); // before dashed, after solid
 * ```
 */
export function diffFigures(
  before: { data: readonly object[]; layout?: object },
  after: { data: readonly object[]; layout?: object },
  options: { tolerance?: number } = {},
): ChartChange | undefined {
  for (const [fig, which] of [
    [before, "before"],
    [after, "after"],
  ] as const)
    if (typeof fig !== "object" || fig === null || !Array.isArray(fig.data))
      throw new TypeError(`diffFigures: ${which} must be a plotly figure { data: [...], layout }`);
  const tolerance = options.tolerance ?? DEFAULT_DIFF_TOLERANCE;
  if (typeof tolerance !== "number" || !(tolerance >= 0))
    throw new RangeError(`diffFigures: tolerance must be a number >= 0, got ${String(tolerance)}`);
  return diffCharts(before as PlotlyJson, after as PlotlyJson, tolerance);
}
