/** `concentration`: how much of a total the largest names hold (a Lorenz-style curve), with top-N share and HHI. */
import type { Figure, Trace } from "./figure";
import { columnsOf, groupBy, numbers, texts, type TableInput } from "./input";
import { displayable } from "./show";
import { axis, baseConfig, baseLayout, INK, paletteColor } from "./theme";

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

/** Σ|value| per name, largest first, and the concentration figures of those shares. */
export function concentrationStats(names: readonly (string | null)[], values: readonly number[], top: number): ConcentrationStats {
  const gross = new Map<string, number>();
  names.forEach((n, i) => {
    const v = Math.abs(values[i]!);
    if (Number.isFinite(v)) gross.set(n ?? "(none)", (gross.get(n ?? "(none)") ?? 0) + v);
  });
  const ranked = [...gross.entries()].sort((a, b) => b[1] - a[1]);
  const total = ranked.reduce((s, [, v]) => s + v, 0);
  let running = 0;
  const cumulative = ranked.map(([, v]) => (running += v) / total);
  const hhi = ranked.reduce((s, [, v]) => s + (v / total) ** 2, 0);
  return { names: ranked.map(([n]) => n), cumulative, topShare: cumulative[Math.min(top, ranked.length) - 1] ?? 0, hhi, effective: hhi > 0 ? 1 / hhi : 0 };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * Concentration of amounts across names: names ranked largest first along x (as a share of the names),
 * the cumulative share of the total along y, one curve per `series`, against the diagonal of equal
 * shares. The legend gives each curve's top-N share, Herfindahl–Hirschman index (Σ share², 1/n for
 * equal shares, 1 for one name) and effective number of names (1/HHI).
 *
 * ```ts
 * plot.show(plot.concentration(trades, { by: "counterparty", value: "notional", series: "portfolio" }));
 * ```
 */
export function concentration(input: TableInput, options: ConcentrationOptions): Figure {
  const top = options.top ?? 5;
  if (!(Number.isInteger(top) && top > 0)) throw new RangeError(`plot.concentration: top must be a whole number > 0; got ${String(top)}`);
  const view = columnsOf(input, "plot.concentration");
  const names = texts(view, options.by);
  const values = numbers(view, options.value ?? "notional");
  const series = options.series ? texts(view, options.series) : undefined;
  // Row indices by series, in first-seen order: one push per row (n log n overall with the ranking below).
  const groups = groupBy(view.rowCount, series ? (i) => series[i] ?? "(none)" : () => "");
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
  [...groups.entries()].forEach(([key, rows], k) => {
    const s = concentrationStats(
      rows.map((i) => names[i]!),
      rows.map((i) => values[i]!),
      top,
    );
    const n = s.names.length;
    data.push({
      type: "scatter",
      mode: n > 30 ? "lines" : "lines+markers",
      name: `${key ? `${key}: ` : ""}top ${Math.min(top, n)} ${pct(s.topShare)} · HHI ${s.hhi.toFixed(3)} · ≈${s.effective.toFixed(1)} names`,
      x: [0, ...s.names.map((_, j) => ((j + 1) / n) * 100)],
      y: [0, ...s.cumulative.map((c) => c * 100)],
      customdata: ["", ...s.names],
      line: { color: paletteColor(k), width: 2, shape: "linear" },
      marker: { color: paletteColor(k), size: 5 },
      hovertemplate: `${key ? `${key}<br>` : ""}up to %{customdata}: %{y:.1f}% of the total<extra></extra>`,
    });
  });
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
