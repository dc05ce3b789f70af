/** `concentration`: how much of a total the largest names hold (a Lorenz-style curve), with top-N share and HHI. */
import type { Figure, Trace } from "./figure";
import { columnsOf, groupBy, numbers, texts, type TableInput } from "./input";
import { displayable } from "./show";
import { axis, baseConfig, baseLayout, INK, seriesLine } from "./theme";

export interface ConcentrationOptions {
  /** The column naming who holds the amounts (`counterparty`, `instrument_name`, …). */
  by: string;
  /** The amounts (absolute values are used). Default `notional`: mind that amounts in different currencies do not add. */
  value?: string;
  /** A column splitting the rows into curves (`portfolio`, `currency`). Default: one curve. */
  series?: string;
  /** The N of the top-N share in the legend. Default 5. */
  top?: number;
  /** Chart title. */
  title?: string;
}

/** One curve's figures: names largest first, their cumulative share, top-N share, HHI and effective number. */
export interface ConcentrationStats {
  names: string[];
  cumulative: number[];
  topShare: number;
  hhi: number;
  effective: number;
}

/**
 * Σ|value| per name, largest first, and the concentration figures of those shares.
 * @example
 * ```ts
 * import { concentrationStats } from "risk-portal-lab/plot";
 * const { topShare, hhi, effective } = concentrationStats(["A", "B", "A", "C"], [5, 3, 2, 1], 2);
 * ```
 */
export function concentrationStats(
  names: readonly (string | null)[],
  values: readonly number[],
  top: number,
): ConcentrationStats {
  // Sums in a Float64Array by the name's slot (first seen first), one Map lookup per row; then the slots
  // ranked by sum, largest first, ties in the order first seen (a total order: the same as a stable sort).
  const slot = new Map<string, number>();
  const keys: string[] = [];
  const sums = new Float64Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const v = Math.abs(values[i]!);
    if (!Number.isFinite(v)) continue;
    const key = names[i] ?? "(none)";
    let k = slot.get(key);
    if (k === undefined) {
      k = keys.length;
      slot.set(key, k);
      keys.push(key);
    }
    sums[k]! += v;
  }
  const m = keys.length;
  const order = Array.from({ length: m }, (_, k) => k).sort((a, b) => sums[b]! - sums[a]! || a - b);
  let total = 0;
  for (const k of order) total += sums[k]!;
  let running = 0;
  let hhi = 0;
  const cumulative = new Array<number>(m);
  const ranked = new Array<string>(m);
  order.forEach((k, j) => {
    cumulative[j] = (running += sums[k]!) / total;
    ranked[j] = keys[k]!;
  });
  for (const k of order) hhi += (sums[k]! / total) ** 2;
  return {
    names: ranked,
    cumulative,
    topShare: cumulative[Math.min(top, m) - 1] ?? 0,
    hhi,
    effective: hhi > 0 ? 1 / hhi : 0,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * Concentration of amounts across names: names ranked largest first along x (as a share of the names),
 * the cumulative share of the total along y, one curve per `series`, against the diagonal of equal
 * shares. The legend gives each curve's top-N share, Herfindahl–Hirschman index (Σ share², 1/n for
 * equal shares, 1 for one name) and effective number of names (1/HHI).
 *
 * @example
 * ```ts
 * plot.show(plot.concentration(trades, { by: "counterparty", value: "notional", series: "portfolio" }));
 * ```
 */
export function concentration(input: TableInput, options: ConcentrationOptions): Figure {
  const top = options.top ?? 5;
  if (!(Number.isInteger(top) && top > 0))
    throw new RangeError(`plot.concentration: top must be a whole number > 0; got ${String(top)}`);
  const view = columnsOf(input, "plot.concentration");
  const names = texts(view, options.by);
  const values = numbers(view, options.value ?? "notional");
  const series = options.series ? texts(view, options.series) : undefined;
  // One curve per series (row indices grouped in one pass, first seen first), or one of every row: the
  // columns as they are, no copy. Each curve n log n (concentrationStats).
  const curves: [string, ConcentrationStats][] = series
    ? [...groupBy(view.rowCount, (i) => series[i] ?? "(none)")].map(([key, rows]) => [
        key,
        concentrationStats(
          rows.map((i) => names[i]!),
          rows.map((i) => values[i]!),
          top,
        ),
      ])
    : view.rowCount > 0
      ? [["", concentrationStats(names, values, top)]]
      : [];
  const data: Trace[] = [
    {
      type: "scatter",
      mode: "lines",
      name: "equal shares",
      x: [0, 100],
      y: [0, 100],
      line: { color: INK.line, dash: "dot", width: 1 },
      hoverinfo: "skip",
    },
  ];
  curves.forEach(([key, s], k) => data.push(curveTrace(key, s, top, k)));
  const value = options.value ?? "notional";
  return displayable({
    data,
    layout: baseLayout(options.title ?? `Concentration of |${value}| by ${options.by}`, {
      xaxis: axis(`${options.by} (largest first, % of names)`, { range: [0, 100], ticksuffix: "%" }),
      yaxis: axis(`cumulative share of |${value}|`, { range: [0, 100], ticksuffix: "%" }),
      legend: { orientation: "v", x: 0.98, xanchor: "right", y: 0.04, yanchor: "bottom", font: { size: 12 } },
    }),
    config: baseConfig(),
  });
}

/** One curve: 0 then each name's cumulative share against its rank as a share of the names (arrays made at their length, no copies). */
function curveTrace(key: string, s: ConcentrationStats, top: number, k: number): Trace {
  const n = s.names.length;
  const x = new Array<number>(n + 1);
  const y = new Array<number>(n + 1);
  const customdata = new Array<string>(n + 1);
  x[0] = 0;
  y[0] = 0;
  customdata[0] = "";
  for (let j = 0; j < n; j++) {
    x[j + 1] = ((j + 1) / n) * 100;
    y[j + 1] = s.cumulative[j]! * 100;
    customdata[j + 1] = s.names[j]!;
  }
  return {
    type: "scatter",
    mode: n > 30 ? "lines" : "lines+markers",
    name: `${key ? `${key}: ` : ""}top ${Math.min(top, n)} ${pct(s.topShare)} · HHI ${s.hhi.toFixed(3)} · ≈${s.effective.toFixed(1)} names`,
    x,
    y,
    customdata,
    ...seriesLine(k, { width: 2, shape: "linear" }, { size: 5 }),
    hovertemplate: `${key ? `${key}<br>` : ""}up to %{customdata}: %{y:.1f}% of the total<extra></extra>`,
  };
}
